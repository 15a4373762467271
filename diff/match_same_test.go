package diff

import (
	"fmt"
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
		// PARCS matches lists in call order or, without it, in call-site
		// order (relaxedStatic): same must agree with both.
		for _, callOrder := range []bool{true, false} {
			if !callOrder && tt.mode != PARCS {
				continue
			}
			t.Run(fmt.Sprintf("%s, call order %v", tt.name, callOrder), func(t *testing.T) {
				testSiblingsSame(t, tt.mode, tt.depth, tt.ka, tt.kb, tt.ca, tt.cb, tt.same, tt.want, callOrder)
			})
		}
	}
}

func testSiblingsSame(t *testing.T, mode Matching, depth int32, ka, kb []key, ca, cb []int64, same bool, counts MatcherCounts, callOrder bool) {
	matcher := func() *matcher {
		m := newMatcher(mode, DefaultBudget)
		m.callOrder = callOrder
		return m
	}
	m := matcher()
	if got := m.same(ka, kb, ca, cb, depth, mode); got != same {
		t.Fatalf("same = %v, want %v", got, same)
	}
	// What the mode's own matching gives, without same.
	ref := matcher()
	var want []pair
	switch {
	case depth == 0:
		want = ref.alternate(ka, kb, nil)
	case mode == PARCS && callOrder:
		ref.counts.Relaxed++
		want = ref.relaxed(ka, kb, ca, cb, nil)
	case mode == PARCS:
		ref.counts.Relaxed++
		want = ref.relaxedStatic(ka, kb, ca, cb, nil)
	case mode == strict:
		ref.counts.Strict++
		want = strictLevel(ka, kb, nil)
	default:
		want = ref.hybrid(ka, kb, depth == 1, nil)
	}
	if ref.counts != counts {
		t.Errorf("the mode's matching counts %+v, want %+v", ref.counts, counts)
	}
	got := slices.Clone(matcher().siblings(ka, kb, ca, cb, depth, mode))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("siblings = %v, the mode's matching %v", got, want)
	}
	m2 := matcher()
	m2.siblings(ka, kb, ca, cb, depth, mode)
	if m2.counts != ref.counts {
		t.Errorf("siblings counts %+v, the mode's matching %+v", m2.counts, ref.counts)
	}
	identity := len(want) == len(ka) && len(ka) == len(kb)
	for i, p := range want {
		identity = identity && p == pair{int32(i), int32(i)}
	}
	if same && !identity {
		t.Errorf("same lists matched %v, not position for position", want)
	}
}
