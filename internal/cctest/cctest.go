// Package cctest builds small profiles and trees from folded-stack lines for
// tests across packages, in the style of x/perf's fixture builders:
//
//	cctest.Tree(t, cct.Options{}, "main;a;b 10", "main;a;c 5")
//
// A line is "[@TIME] [thread=NAME] root;...;leaf VALUE": stacks are root
// first; TIME (ns) becomes the timestamp_ns label and NAME the thread label.
// Several values may follow the stack when SampleTypes has several types.
package cctest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// SampleTypes are the sample types of profiles built by Profile unless the
// caller passes others to ProfileTypes.
var SampleTypes = []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}

// Profile builds a pprof profile from folded lines with SampleTypes.
func Profile(tb testing.TB, lines ...string) *profile.Profile {
	tb.Helper()
	return ProfileTypes(tb, SampleTypes, lines...)
}

// ProfileTypes builds a pprof profile from folded lines with the given
// sample types. Function names may carry a file as "name@file".
func ProfileTypes(tb testing.TB, types []*profile.ValueType, lines ...string) *profile.Profile {
	tb.Helper()
	p := &profile.Profile{SampleType: types}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for _, line := range lines {
		fields := strings.Fields(line)
		s := &profile.Sample{}
		for len(fields) > 0 && (strings.HasPrefix(fields[0], "@") || strings.HasPrefix(fields[0], "thread=")) {
			f := fields[0]
			fields = fields[1:]
			if t, ok := strings.CutPrefix(f, "@"); ok {
				ts, err := strconv.ParseInt(t, 10, 64)
				if err != nil {
					tb.Fatalf("cctest: bad time in %q", line)
				}
				s.NumLabel = map[string][]int64{labels.Timestamp: {ts}}
				s.NumUnit = map[string][]string{labels.Timestamp: {labels.TimestampUnit}}
			} else {
				s.Label = map[string][]string{labels.Thread: {strings.TrimPrefix(f, "thread=")}}
			}
		}
		if len(fields) != 1+len(types) {
			tb.Fatalf("cctest: want \"stack %s\", got %q", strings.Repeat("VALUE ", len(types)), line)
		}
		for _, v := range fields[1:] {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				tb.Fatalf("cctest: bad value in %q", line)
			}
			s.Value = append(s.Value, n)
		}
		frames := strings.Split(fields[0], ";")
		for i := len(frames) - 1; i >= 0; i-- {
			s.Location = append(s.Location, location(p, funcs, locs, frames[i]))
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		tb.Fatalf("cctest: %v", err)
	}
	return p
}

func location(p *profile.Profile, funcs map[string]*profile.Function, locs map[string]*profile.Location, frame string) *profile.Location {
	if l, ok := locs[frame]; ok {
		return l
	}
	name, file, _ := strings.Cut(frame, "@")
	fn, ok := funcs[name+"@"+file]
	if !ok {
		fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		p.Function = append(p.Function, fn)
		funcs[name+"@"+file] = fn
	}
	l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
	p.Location = append(p.Location, l)
	locs[frame] = l
	return l
}

// Tree builds a tree from folded lines with SampleTypes.
func Tree(tb testing.TB, opts cct.Options, lines ...string) *cct.Tree {
	tb.Helper()
	t, err := cct.FromProfile(Profile(tb, lines...), opts)
	if err != nil {
		tb.Fatalf("cctest: %v", err)
	}
	if err := t.Validate(); err != nil {
		tb.Fatalf("cctest: invalid tree: %v", err)
	}
	return t
}

// Dump renders a tree as indented "label self total" lines, for compact
// assertions in tests.
func Dump(t *cct.Tree, sampleIndex int) string {
	var b strings.Builder
	for _, id := range t.PreOrder()[1:] {
		n := t.Node(id)
		fmt.Fprintf(&b, "%s%s %d %d\n", strings.Repeat("  ", int(n.Depth)-1), t.Label(id), t.Self(id)[sampleIndex], t.Total(id)[sampleIndex])
	}
	return b.String()
}
