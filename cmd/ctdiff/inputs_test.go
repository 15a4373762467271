package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// symlink makes link point at target, or skips the test where links
// cannot be made.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make symbolic links: %v", err)
	}
}

// Inputs by the hundred: directories (whose symbolic links are followed),
// globs and @lists expand to the files they stand for, in order; what
// cannot be read is an error naming the input, and for a list its line.
func TestExpandInputs(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	links := filepath.Join(dir, "links")
	mixed := filepath.Join(dir, "mixed")
	for _, d := range []string{store, links, mixed, filepath.Join(dir, "lists"), filepath.Join(dir, "runs"), filepath.Join(dir, "runs", "a"), filepath.Join(dir, "runs", "b")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"r1.pb.gz", "r2.pb.gz", "r3.pb.gz"} {
		writeFile(t, store, n, "x")
	}
	writeFile(t, filepath.Join(dir, "runs", "a"), "p.pb.gz", "x")
	writeFile(t, filepath.Join(dir, "runs", "b"), "p.pb.gz", "x")
	// A directory of symbolic links to profiles (relative and absolute),
	// a link to a directory (not followed into: directories are not
	// recursive) and a hidden link.
	symlink(t, "../store/r2.pb.gz", filepath.Join(links, "b.pb.gz"))
	symlink(t, filepath.Join(store, "r1.pb.gz"), filepath.Join(links, "a.pb.gz"))
	symlink(t, "../store", filepath.Join(links, "sub"))
	symlink(t, "nowhere", filepath.Join(links, ".hidden"))
	// Links that lead nowhere.
	loop := filepath.Join(dir, "loop")
	if err := os.Mkdir(loop, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "b", filepath.Join(loop, "a"))
	symlink(t, "a", filepath.Join(loop, "b"))
	dangling := filepath.Join(dir, "dangling")
	if err := os.Mkdir(dangling, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "gone.pb.gz", filepath.Join(dangling, "r.pb.gz"))
	symlink(t, "store", filepath.Join(dir, "storelink"))

	list := writeFile(t, filepath.Join(dir, "lists"), "runs.txt", strings.Join([]string{
		"# the base runs",
		"",
		"../store/r3.pb.gz",
		"  ../store/r1.pb.gz  \r",
		filepath.Join(store, "r2.pb.gz"),
		"../links",
		"../runs/*",
		"https://example.com/debug/pprof/profile",
	}, "\n"))
	missing := writeFile(t, filepath.Join(dir, "lists"), "missing.txt", "# two runs\n../store/r1.pb.gz\n../store/r9.pb.gz\n")
	noMatch := writeFile(t, filepath.Join(dir, "lists"), "nomatch.txt", "../store/*.json\n")
	stdin := writeFile(t, filepath.Join(dir, "lists"), "stdin.txt", "-\n")
	loopList := writeFile(t, filepath.Join(dir, "lists"), "loop.txt", "../loop/a\n")
	empty := writeFile(t, filepath.Join(dir, "lists"), "empty.txt", "# nothing yet\n\n")

	p := func(parts ...string) string { return filepath.Join(append([]string{dir}, parts...)...) }
	for _, tc := range []struct {
		name string
		args []string
		want []string
		err  string
	}{
		{name: "directory", args: []string{store}, want: []string{p("store", "r1.pb.gz"), p("store", "r2.pb.gz"), p("store", "r3.pb.gz")}},
		{name: "directory of links", args: []string{links}, want: []string{p("links", "a.pb.gz"), p("links", "b.pb.gz")}},
		{name: "link to a directory", args: []string{p("storelink")}, want: []string{p("storelink", "r1.pb.gz"), p("storelink", "r2.pb.gz"), p("storelink", "r3.pb.gz")}},
		{name: "glob of directories", args: []string{p("runs", "*")}, want: []string{p("runs", "a", "p.pb.gz"), p("runs", "b", "p.pb.gz")}},
		{name: "glob of links", args: []string{p("links", "*.pb.gz")}, want: []string{p("links", "a.pb.gz"), p("links", "b.pb.gz")}},
		{name: "list", args: []string{"@" + list, p("store", "r1.pb.gz")}, want: []string{
			p("store", "r3.pb.gz"), p("store", "r1.pb.gz"), p("store", "r2.pb.gz"),
			p("links", "a.pb.gz"), p("links", "b.pb.gz"),
			p("runs", "a", "p.pb.gz"), p("runs", "b", "p.pb.gz"),
			"https://example.com/debug/pprof/profile",
			p("store", "r1.pb.gz"),
		}},
		{name: "empty list", args: []string{"@" + empty}, err: empty + ": the list names no inputs"},
		{name: "missing list", args: []string{"@" + p("lists", "none.txt")}, err: "@" + p("lists", "none.txt") + ": cannot read the list of inputs: no such file or directory"},
		{name: "list naming a missing file", args: []string{"@" + missing}, err: missing + ":3: " + p("store", "r9.pb.gz") + ": no such file or directory"},
		{name: "list with a glob matching nothing", args: []string{"@" + noMatch}, err: noMatch + ":1: " + p("store", "*.json") + ": no file matched"},
		{name: "list naming standard input", args: []string{"@" + stdin}, err: stdin + ":1: standard input (-) cannot be listed: give it on the command line"},
		{name: "list naming a link loop", args: []string{"@" + loopList}, err: loopList + ":1: " + p("loop", "a") + ": a loop of symbolic links"},
		{name: "directory with a link loop", args: []string{loop}, err: p("loop", "a") + ": a symbolic link that leads to no file: a loop of symbolic links"},
		{name: "directory with a dangling link", args: []string{dangling}, err: p("dangling", "r.pb.gz") + ": a symbolic link that leads to no file: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := expandInputs(tc.args)
			switch {
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && !slices.Equal(got, tc.want):
				t.Errorf("expanded to\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// ctdiff diff reads @lists as it reads directories, and a directory of
// links to profiles as the profiles; it says which list and line name a
// missing run.
func TestDiffInputLists(t *testing.T) {
	dir := t.TempDir()
	old, _ := filepath.Abs(exampleOld)
	writeFile(t, dir, "old.txt", "# base\n"+filepath.Join(old, "run1.pb.gz")+"\n"+filepath.Join(old, "run2.pb.gz")+"\n"+filepath.Join(old, "run3.pb.gz")+"\n")
	newDir := filepath.Join(dir, "new")
	if err := os.Mkdir(newDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"run1.pb.gz", "run2.pb.gz", "run3.pb.gz"} {
		abs, _ := filepath.Abs(filepath.Join(exampleNew, n))
		symlink(t, abs, filepath.Join(newDir, n))
	}
	writeFile(t, dir, "new.txt", "new/run*.pb.gz\n")
	// The comparison, but for the paths of the profiles.
	compare := func(args ...string) map[string]any {
		t.Helper()
		out, errOut, code := ctdiff(append([]string{"diff", "--format", "json"}, args...)...)
		if code != exitOK {
			t.Fatalf("diff %v: exit %d: %s", args, code, errOut)
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		for _, side := range []string{"base", "new"} {
			delete(res[side].(map[string]any), "profiles")
		}
		return res
	}
	want := compare(exampleOld, exampleNew)
	for _, args := range [][]string{{exampleOld, newDir}, {"@" + filepath.Join(dir, "old.txt"), "@" + filepath.Join(dir, "new.txt")}} {
		if got := compare(args...); !reflect.DeepEqual(got, want) {
			t.Errorf("diff %v compares differently from diff of the example's directories", args)
		}
	}
	bad := writeFile(t, dir, "bad.txt", filepath.Join(old, "run1.pb.gz")+"\nrun4.pb.gz\n")
	_, errOut, code := ctdiff("diff", "@"+bad, exampleNew)
	if wantErr := "ctdiff: " + bad + ":2: " + filepath.Join(dir, "run4.pb.gz") + ": no such file or directory\n"; code != exitError || errOut != wantErr {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, wantErr)
	}
}
