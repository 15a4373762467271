package diff

import (
	"reflect"
	"slices"
	"testing"
)

// Sibling lists that are the same on both sides take matcher.same's path:
// its pairs and counts must be those of the mode's own matching, which
// this test calls directly (siblings would take the fast path).
func TestSiblingsSame(t *testing.T) {
	dup := []key{3, 5, 3, 7, 5, 3, 9, 9, 1, 2} // duplicates, and > 8 for the alternate matching's map
	for _, tt := range []struct {
		name   string
		mode   Matching
		depth  int32
		ka, kb []key
		ca, cb []int64
		same   bool // same's answer
		want   MatcherCounts
	}{
		{"threads", ZAM, 0, []key{1, 2}, []key{1, 2}, nil, nil, true, MatcherCounts{}},
		{"ZAM top level", ZAM, 1, dup, dup, nil, nil, true, MatcherCounts{Alternate: 1}},
		{"ZAM short top level", ZAM, 1, []key{4, 4, 2}, []key{4, 4, 2}, nil, nil, true, MatcherCounts{Alternate: 1}},
		{"ZAM LCS", ZAM, 2, dup, dup, nil, nil, true, MatcherCounts{LCS: 1}},
		{"strict", strict, 3, dup, dup, nil, nil, true, MatcherCounts{Strict: 1}},
		{"PARCS, same call sites", PARCS, 2, []key{1, 1, 2}, []key{1, 1, 2}, []int64{10, 20, 30}, []int64{10, 20, 30}, true, MatcherCounts{Relaxed: 1}},
		{"PARCS, no call sites", PARCS, 2, []key{1, 1, 2}, []key{1, 1, 2}, nil, nil, true, MatcherCounts{Relaxed: 1}},
		// Rule 4 drops the second pair: the call sites are ordered
		// differently, so same must decline.
		{"PARCS, call sites reordered", PARCS, 2, []key{1, 2}, []key{1, 2}, []int64{10, 20}, []int64{20, 10}, false, MatcherCounts{Relaxed: 1}},
		{"other keys", ZAM, 2, []key{1, 2}, []key{1, 3}, nil, nil, false, MatcherCounts{LCS: 1, Residual: 0}},
		{"longer", ZAM, 2, []key{1, 2}, []key{1, 2, 3}, nil, nil, false, MatcherCounts{LCS: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(tt.mode, DefaultBudget)
			if got := m.same(tt.ka, tt.kb, tt.ca, tt.cb, tt.depth, tt.mode); got != tt.same {
				t.Fatalf("same = %v, want %v", got, tt.same)
			}
			// What the mode's own matching gives, without same.
			ref := newMatcher(tt.mode, DefaultBudget)
			var want []pair
			switch {
			case tt.depth == 0:
				want = ref.alternate(tt.ka, tt.kb, nil)
			case tt.mode == PARCS:
				ref.counts.Relaxed++
				want = ref.relaxed(tt.ka, tt.kb, tt.ca, tt.cb, nil)
			case tt.mode == strict:
				ref.counts.Strict++
				want = strictLevel(tt.ka, tt.kb, nil)
			default:
				want = ref.hybrid(tt.ka, tt.kb, tt.depth == 1, nil)
			}
			if ref.counts != tt.want {
				t.Errorf("the mode's matching counts %+v, want %+v", ref.counts, tt.want)
			}
			got := slices.Clone(newMatcher(tt.mode, DefaultBudget).siblings(tt.ka, tt.kb, tt.ca, tt.cb, tt.depth, tt.mode))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("siblings = %v, the mode's matching %v", got, want)
			}
			m2 := newMatcher(tt.mode, DefaultBudget)
			m2.siblings(tt.ka, tt.kb, tt.ca, tt.cb, tt.depth, tt.mode)
			if m2.counts != ref.counts {
				t.Errorf("siblings counts %+v, the mode's matching %+v", m2.counts, ref.counts)
			}
			identity := len(want) == len(tt.ka) && len(tt.ka) == len(tt.kb)
			for i, p := range want {
				identity = identity && p == pair{int32(i), int32(i)}
			}
			if tt.same && !identity {
				t.Errorf("same lists matched %v, not position for position", want)
			}
		})
	}
}
