#!/bin/sh
# Regenerates testdata/bench: CPU profiles and benchmark outputs of real
# go test -bench runs of tools/example's BenchmarkHandleRequest, the old
# version (old/, old.txt) and the new one with the injected slowdown
# (CTDIFF_EXAMPLE_SLOW=1: new/, new.txt). Each go test run profiles one
# benchmark with -count 2, so each profile holds two result lines of its
# side's output; the runs alternate between the versions, as benchstat
# advises. Run from anywhere:
#
#	sh testdata/bench/gen.sh [runs]     # default 5 runs per version
#
# then compare:
#
#	ctdiff diff testdata/bench/old testdata/bench/new \
#	    --bench-base testdata/bench/old.txt --bench-new testdata/bench/new.txt
set -eu
cd "$(dirname "$0")/../.."
out=testdata/bench
runs=${1:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out/old" "$out/new" "$out/old.txt" "$out/new.txt"
mkdir -p "$out/old" "$out/new"
i=1
while [ "$i" -le "$runs" ]; do
	for side in old new; do
		slow=0
		[ "$side" = new ] && slow=1
		CTDIFF_EXAMPLE_SLOW=$slow go test ./tools/example -run '^$' \
			-bench '^BenchmarkHandleRequest$' -count 2 \
			-cpuprofile "$out/$side/run$i.pprof" -o "$tmp/example.test" >>"$out/$side.txt"
	done
	i=$((i + 1))
done
if command -v benchstat >/dev/null; then
	(cd "$out" && benchstat old.txt new.txt >benchstat.txt)
fi
ls -l "$out" "$out/old" "$out/new"
