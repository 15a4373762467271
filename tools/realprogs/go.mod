module github.com/ctdiff/ctdiff/tools/realprogs

go 1.26
