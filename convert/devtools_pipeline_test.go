package convert

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/long"
)

// Events are cut and decoded on two goroutines (eventArray); the error
// reported must still be the first one reading them in order meets,
// whichever goroutine meets it and in whichever batch.
func TestDevtoolsPipelineErrors(t *testing.T) {
	const profile = `{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0}`
	// filler is n events of no interest, about 60 bytes each.
	filler := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `,{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":%d}`, i)
		}
		return b.String()
	}
	many := eventBatchBytes/50 + 1000 // more than a batch of filler
	badChunk := `,{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"samples":[1,1]},"timeDeltas":[1]}}}`
	tests := []struct {
		name, in, want string
	}{
		{"a decoding error in a later batch", `[` + profile + filler(many) + badChunk + `]`,
			fmt.Sprintf("event %d (byte ", many+1)},
		{"a decoding error before a syntax error", `[` + profile + filler(many) + badChunk + filler(many) + `, {"name":"x"]]`,
			fmt.Sprintf("event %d (byte ", many+1)},
		{"a decoding error just before a syntax error", `[` + profile + badChunk + `, {"name":"x"]]`,
			"event 1 (byte "},
		{"a syntax error in a later batch", `[` + profile + filler(3*many) + `, {"name":"x"]]`,
			"unbalanced ']'"},
		{"not an event in a later batch", `[` + profile + filler(2*many) + `, 42]`,
			fmt.Sprintf("event %d (byte ", 2*many+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "t.json", Options{From: "devtools"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Without errors, every event is decoded: a Profile far into the
	// trace is found.
	in := `[` + filler(3 * many)[1:] + `,` + profile + `,{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f","url":"","scriptId":"0","lineNumber":0,"columnNumber":0}}],"samples":[1,1]},"timeDeltas":[1,2]}}}]`
	res, err := Read(strings.NewReader(in), "t.json", Options{From: "devtools"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Profile.Sample); n != 2 {
		t.Fatalf("%d samples, want 2", n)
	}
}

// Profiles are assembled in parallel (assembleProfiles); of two broken
// ones, the first in the trace's order is reported.
func TestDevtoolsProfilesErrorOrder(t *testing.T) {
	ev := func(id, kind, rest string) string {
		return `{"name":"` + kind + `","id":"` + id + `","pid":1,"tid":1,"ts":0` + rest + `}`
	}
	cycle := `,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"parent":2},{"id":2,"parent":1}],"samples":[1]},"timeDeltas":[1]}}`
	dup := `,"args":{"data":{"cpuProfile":{"nodes":[{"id":1},{"id":1}],"samples":[]},"timeDeltas":[]}}`
	for _, tt := range []struct{ name, in, want string }{
		{"first key first", `[` + ev("0x1", "Profile", "") + `,` + ev("0x2", "Profile", "") + `,` +
			ev("0x1", "ProfileChunk", cycle) + `,` + ev("0x2", "ProfileChunk", dup) + `]`,
			"t.json: event 2: the parent links of node 1 form a loop"},
		{"second key's chunk first", `[` + ev("0x1", "Profile", "") + `,` + ev("0x2", "Profile", "") + `,` +
			ev("0x2", "ProfileChunk", dup) + `,` + ev("0x1", "ProfileChunk", cycle) + `]`,
			"t.json: event 3: the parent links of node 1 form a loop"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 { // the goroutines finish in any order
				_, err := Read(strings.NewReader(tt.in), "t.json", Options{From: "devtools"})
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
			}
		})
	}
}

// The stack budget is charged profile by profile in order, though the
// trees are walked in parallel (layout): the profile named is the first
// whose samples overdraw it (at least 2^27 frames).
func TestDevtoolsBudgetOrder(t *testing.T) {
	// chain is a Profile and a ProfileChunk of a chain of n nodes whose
	// deepest is sampled reps times: reps*n frames and more.
	chain := func(id string, tid, n, reps int) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"name":"Profile","id":"%s","pid":1,"tid":%d,"ts":0},`, id, tid)
		fmt.Fprintf(&b, `{"name":"ProfileChunk","id":"%s","pid":1,"tid":%d,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[`, id, tid)
		for k := 1; k <= n; k++ {
			if k > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"parent":%d,"callFrame":{"functionName":"f%d","url":"","scriptId":"0","lineNumber":0,"columnNumber":0}}`, k, k-1, k)
		}
		b.WriteString(`],"samples":[`)
		b.WriteString(strings.TrimSuffix(strings.Repeat(fmt.Sprint(n)+",", reps), ","))
		b.WriteString(`]},"timeDeltas":[` + strings.TrimSuffix(strings.Repeat("10,", reps), ",") + `]}}}`)
		return b.String()
	}
	const over = "stack frames exceed the limit: the stacks hold more than"
	for _, tt := range []struct{ name, in, want string }{
		{"the first overdraws", `[` + chain("0x1", 1, 2000, 70_000) + `,` + chain("0x2", 2, 10, 10) + `]`, "profile 0x1 of pid 1 (Profile event 0): " + over},
		{"the second overdraws", `[` + chain("0x1", 1, 10, 10) + `,` + chain("0x2", 2, 2000, 70_000) + `]`, "profile 0x2 of pid 1 (Profile event 2): " + over},
		{"both overdraw", `[` + chain("0x1", 1, 2000, 70_000) + `,` + chain("0x2", 2, 2000, 70_000) + `]`, "profile 0x1 of pid 1 (Profile event 0): " + over},
		{"together", `[` + chain("0x1", 1, 2000, 40_000) + `,` + chain("0x2", 2, 2000, 40_000) + `]`, "profile 0x2 of pid 1 (Profile event 2): " + over},
		{"too deep", `[` + chain("0x1", 1, 10, 10) + `,` + chain("0x2", 2, MaxStackDepth+1, 1) + `]`, "profile 0x2 of pid 1 (Profile event 2): stack frames exceed the limit: a stack of"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "too deep" {
				long.Skip(t, "a chain of a million nodes")
			}
			_, err := Read(strings.NewReader(tt.in), "t.json", Options{From: "devtools"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}
