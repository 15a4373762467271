package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestPoolsFlag runs the CLI on a pool of two threads before and four
// after, the same work: by default (--pools=auto) the resized pool is
// compared as one thread, and a warning says so; --pools=off compares
// thread by thread, where the two new threads' contexts are added (and a
// warning names the pool and --pools); --pools merges every pool.
func TestPoolsFlag(t *testing.T) {
	dir := t.TempDir()
	var before, after []string
	for i := range 2 {
		before = append(before, "thread=pool-1-thread-"+string(rune('1'+i))+" run;query 400000000")
	}
	for i := range 4 {
		after = append(after, "thread=pool-1-thread-"+string(rune('1'+i))+" run;query 200000000")
	}
	// a pool of the same size on both sides keeps its threads under auto
	// (its second thread slower, which names it)
	before = append(before, "thread=io-1 poll 300000000", "thread=io-2 poll 300000000")
	after = append(after, "thread=io-1 poll 300000000", "thread=io-2 poll 900000000")
	old := writeProfile(t, dir, "old.pb.gz", before...)
	nw := writeProfile(t, dir, "new.pb.gz", after...)
	for _, tt := range []struct {
		name      string
		args      []string
		want, not string
	}{
		{name: "diff, auto", args: []string{"diff", old, nw}, want: "Regression causes", not: "pool-1-thread-3]"},
		{name: "diff, auto says so", args: []string{"diff", old, nw, "--format", "json"},
			want: `threads: a thread pool is compared as one thread where it has another size on each side: the thread pool of \"pool-1-thread-3\" has 2 threads in the base runs and 4 in the new (--pools=off compares thread by thread, --pools merges every pool)`},
		{name: "diff, auto merges the resized pool only", args: []string{"diff", old, nw}, want: "[io-2] poll", not: "io-#"},
		{name: "diff --pools merges every pool", args: []string{"diff", "--pools", old, nw}, want: "[io-#] poll"},
		{name: "diff --pools=off", args: []string{"diff", "--pools=off", old, nw}, want: "[pool-1-thread-3]"},
		{name: "diff --pools=off, the warning", args: []string{"diff", "--pools=off", old, nw, "--format", "json"},
			want: `the thread pool of \"pool-1-thread-3\" has 2 threads in the base runs and 4 in the new: the contexts`},
		{name: "diff --pools", args: []string{"diff", "--pools", old, nw}, want: "Regression causes", not: "thread pool"},
		{name: "cct --pools", args: []string{"cct", "--pools", nw}, want: "pool-#-thread-#", not: "pool-1-thread-3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tt.args, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, out.String())
			}
			if tt.not != "" && strings.Contains(out.String(), tt.not) {
				t.Errorf("output has %q:\n%s", tt.not, out.String())
			}
		})
	}
}

func TestPoolsFlagValues(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"diff", "--pools=maybe", "a", "b"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--pools") {
		t.Errorf("exit %d, stderr %q: want 2 and an error naming --pools", code, errb.String())
	}
}
