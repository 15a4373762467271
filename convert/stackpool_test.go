package convert

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/stacks"
)

// A chain laid out deepest first takes one stack's room; nodes whose
// stacks share no tail take their own; the pool refuses more than its
// limit before walking.
func TestStackPoolLayout(t *testing.T) {
	// Nodes 0-4 are a chain (parent n-1), 5 and 6 hang off 2 and 4.
	parent := []int32{-1, 0, 1, 2, 3, 2, 4}
	depth := func(n int32) int {
		d := 0
		for ; n >= 0; n = parent[n] {
			d++
		}
		return d
	}
	walk := func(n int32, frames, owners []int32) ([]int32, []int32) {
		for ; n >= 0; n = parent[n] {
			frames, owners = append(frames, 100+n), append(owners, n)
		}
		return frames, owners
	}
	sp := &stackPool{limit: 100}
	refs := make([]stackRef, len(parent))
	if err := sp.layout([]int32{1, 3, 4, 5, 6, 0}, depth, refs, walk); err != nil {
		t.Fatal(err)
	}
	for n := range int32(len(parent)) {
		var want []int32
		for m := n; m >= 0; m = parent[m] {
			want = append(want, 100+m)
		}
		if got := sp.locs[refs[n].start:refs[n].end]; !slices.Equal(got, want) {
			t.Errorf("node %d: stack %v, want %v", n, got, want)
		}
	}
	// 6 (depth 6) then 5 (depth 4): the chain below 6 holds 0-4.
	if len(sp.locs) != 10 {
		t.Errorf("the pool holds %d frames, want 10 (nodes 6 and 5 each, the rest tails)", len(sp.locs))
	}

	small := &stackPool{limit: 9}
	err := small.layout([]int32{6, 5}, depth, make([]stackRef, len(parent)), walk)
	if !errors.Is(err, errStackLimit) || !strings.Contains(err.Error(), "the stacks of the sampled nodes hold more than 9 frames that share no tail") {
		t.Fatalf("over the limit: %v", err)
	}
}

// A pool's limit grows with the tree and the input up to what int32
// offsets address, and its error names the rule that set it.
func TestPoolLimit(t *testing.T) {
	const rule = "64 per node of the tree and 4 per input byte, at least 4194304"
	tests := []struct {
		bytes    int64
		nodes    int
		want     int64
		wantRule string
	}{
		{0, 0, minPoolFrames, rule},
		{minPoolFrames / poolFramesPerByte * 2, 1 << 30, minPoolFrames * 2, rule},
		// Bytes that hold few nodes (white space, comments) do not raise it.
		{1 << 40, 1000, minPoolFrames, rule},
		{1 << 40, minPoolFrames / poolFramesPerNode * 4, minPoolFrames * 4, rule},
		{1 << 40, 1 << 30, stacks.MaxLocations, "the most the compact samples can address"},
	}
	for _, tt := range tests {
		got := poolLimit(tt.bytes, tt.nodes)
		if got != tt.want {
			t.Errorf("poolLimit(%d, %d) = %d, want %d", tt.bytes, tt.nodes, got, tt.want)
		}
		if rule := poolLimitRule(got); rule != tt.wantRule {
			t.Errorf("poolLimitRule(%d) = %q, want %q", got, rule, tt.wantRule)
		}
	}
}
