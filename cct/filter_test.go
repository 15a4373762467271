package cct

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// filterProfile builds a profile from folded lines "root;...;leaf VALUE",
// where a frame "a+b" is one location holding b inlined into a, a frame
// "name@file" has a file, and "lib!0x10" is an unsymbolized location of
// the mapping lib.so.
func filterProfile(t *testing.T, lines ...string) *profile.Profile {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	fns := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	maps := map[string]*profile.Mapping{}
	function := func(s string) *profile.Function {
		if fn, ok := fns[s]; ok {
			return fn
		}
		name, file, _ := strings.Cut(s, "@")
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		p.Function = append(p.Function, fn)
		fns[s] = fn
		return fn
	}
	location := func(s string) *profile.Location {
		if l, ok := locs[s]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1)}
		if lib, addr, ok := strings.Cut(s, "!"); ok {
			m, ok := maps[lib]
			if !ok {
				m = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), File: "/usr/lib/" + lib + ".so", Limit: 1 << 20}
				p.Mapping = append(p.Mapping, m)
				maps[lib] = m
			}
			if _, err := fmt.Sscanf(addr, "0x%x", &l.Address); err != nil {
				t.Fatalf("bad address in %q", s)
			}
			l.Mapping = m
		} else {
			names := strings.Split(s, "+")
			for i := len(names) - 1; i >= 0; i-- { // innermost first
				l.Line = append(l.Line, profile.Line{Function: function(names[i]), Line: int64(10 + i)})
			}
		}
		p.Location = append(p.Location, l)
		locs[s] = l
		return l
	}
	for _, line := range lines {
		stack, value, _ := strings.Cut(line, " ")
		var v int64
		if _, err := fmt.Sscan(value, &v); err != nil {
			t.Fatalf("bad value in %q", line)
		}
		s := &profile.Sample{Value: []int64{v}}
		frames := strings.Split(stack, ";")
		for i := len(frames) - 1; i >= 0; i-- {
			if frames[i] != "" {
				s.Location = append(s.Location, location(frames[i]))
			}
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// dumpTree is a tree as "path self" lines, root first, in pre-order.
func dumpTree(tr *Tree) string {
	var b strings.Builder
	for _, id := range tr.PreOrder()[1:] {
		var names []string
		for _, a := range tr.Path(id)[1:] { // below the thread
			names = append(names, tr.Label(a))
		}
		if len(names) > 0 {
			fmt.Fprintf(&b, "%s %d\n", strings.Join(names, ";"), tr.Self(id)[0])
		}
	}
	return b.String()
}

func TestFilters(t *testing.T) {
	lines := []string{
		"main;handle;strings.EqualFold@strings.go 5",
		"main;handle;render+fmt.Sprintf 3",
		"main;gc 2",
		"main;handle;libc!0x10 7",
		" 4", // no location at all
	}
	for _, tt := range []struct {
		name    string
		filters Filters
		want    string
		// unmatched are the filters that matched nothing.
		unmatched []string
	}{
		{
			name:    "focus keeps the samples with a matching frame, unanchored",
			filters: Filters{Focus: "Equal"},
			want:    "main 0\nmain;handle 0\nmain;handle;strings.EqualFold 5\n",
		},
		{
			name:    "focus matches a file name",
			filters: Filters{Focus: `^strings\.go$`},
			want:    "main 0\nmain;handle 0\nmain;handle;strings.EqualFold 5\n",
		},
		{
			name:    "focus matches an inlined call's function",
			filters: Filters{Focus: "Sprintf"},
			want:    "main 0\nmain;handle 0\nmain;handle;render 0\nmain;handle;render;fmt.Sprintf 3\n",
		},
		{
			name:    "focus matches a mapping's file",
			filters: Filters{Focus: `libc\.so`},
			want:    "main 0\nmain;handle 0\nmain;handle;libc.so!0x10 7\n",
		},
		{
			name:    "ignore drops the samples with a matching frame",
			filters: Filters{Ignore: "handle"},
			want:    "main 0\nmain;gc 2\n",
		},
		{
			name:    "ignore wins over focus",
			filters: Filters{Focus: "main", Ignore: "render|libc"},
			want:    "main 0\nmain;handle 0\nmain;handle;strings.EqualFold 5\nmain;gc 2\n",
		},
		{
			name:    "hide removes frames, their time goes to the caller",
			filters: Filters{Hide: `^handle$|Sprintf`},
			want:    "main 0\nmain;strings.EqualFold 5\nmain;render 3\nmain;gc 2\nmain;libc.so!0x10 7\n",
		},
		{
			name:    "hide by mapping removes an unsymbolized frame",
			filters: Filters{Hide: `libc`},
			want:    "main 0\nmain;handle 7\nmain;handle;strings.EqualFold 5\nmain;handle;render 0\nmain;handle;render;fmt.Sprintf 3\nmain;gc 2\n",
		},
		{
			name:    "show keeps only matching frames, their time goes to the nearest one shown",
			filters: Filters{Show: `^main$|Equal`},
			want:    "main 12\nmain;strings.EqualFold 5\n",
		},
		{
			name:    "show: samples left without a frame go",
			filters: Filters{Show: `Equal|gc`},
			want:    "strings.EqualFold 5\ngc 2\n",
		},
		{
			name:    "focus sees the frames hide removes",
			filters: Filters{Focus: "render", Hide: "render|Sprintf"},
			want:    "main 0\nmain;handle 3\n",
		},
		{
			name:      "a filter that matches nothing",
			filters:   Filters{Focus: "nosuch", Hide: "nosuch"},
			want:      "",
			unmatched: []string{"focus", "hide"},
		},
		{
			name:      "show that keeps no frame drops every sample",
			filters:   Filters{Show: "nosuch"},
			want:      "",
			unmatched: []string{"show"},
		},
		{
			name:    "ignore alone keeps the other samples, not the empty one",
			filters: Filters{Ignore: "nosuch"},
			want: "main 0\nmain;handle 0\nmain;handle;strings.EqualFold 5\nmain;handle;render 0\nmain;handle;render;fmt.Sprintf 3\n" +
				"main;handle;libc.so!0x10 7\nmain;gc 2\n",
			unmatched: []string{"ignore"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := tt.filters.Compile()
			if err != nil {
				t.Fatal(err)
			}
			tr, err := FromProfile(filterProfile(t, lines...), Options{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpTree(tr); got != tt.want {
				t.Errorf("tree:\n%s\nwant:\n%s", got, tt.want)
			}
			if got := f.Unmatched(); !slices.Equal(got, tt.unmatched) {
				t.Errorf("unmatched %q, want %q", got, tt.unmatched)
			}
		})
	}
}

func TestFiltersCompile(t *testing.T) {
	if f, err := (Filters{}).Compile(); f != nil || err != nil {
		t.Errorf("no filters: %v, %v; want nil, nil", f, err)
	}
	_, err := Filters{Focus: "ok", Hide: "a(b"}.Compile()
	var fe *FilterError
	if !errors.As(err, &fe) || fe.Name != "hide" {
		t.Fatalf("error %v, want a *FilterError for hide", err)
	}
	if want := "hide \"a(b\": error parsing regexp: missing closing ): `a(b`"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got, want := (Filters{Focus: "a", Show: "b|c"}).String(), "focus=a, show=b|c"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
}

// randomFilterProfile is a profile of n samples over functions f0..f9 in
// files a.go and b.go, with inlined calls, an unsymbolized location of a
// mapping, thread labels and timestamps.
func randomFilterProfile(rng *rand.Rand, n int) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	m := &profile.Mapping{ID: 1, File: "/lib/libz.so", Limit: 1 << 20}
	p.Mapping = []*profile.Mapping{m}
	for i := range 10 {
		name := fmt.Sprintf("f%d", i)
		p.Function = append(p.Function, &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: []string{"a.go", "b.go"}[i%2]})
	}
	for i := range 14 {
		l := &profile.Location{ID: uint64(i + 1)}
		switch {
		case i == 13:
			l.Address, l.Mapping = 0x40, m
		case i%4 == 3:
			l.Line = []profile.Line{{Function: p.Function[i%10], Line: 3}, {Function: p.Function[(i+3)%10], Line: 4}}
		default:
			l.Line = []profile.Line{{Function: p.Function[i%10], Line: int64(i)}}
		}
		p.Location = append(p.Location, l)
	}
	threads := []string{"main", "worker"}
	for i := range n {
		var stack []*profile.Location
		for range rng.IntN(7) {
			stack = append(stack, p.Location[rng.IntN(len(p.Location))])
		}
		p.Sample = append(p.Sample, &profile.Sample{
			Location: stack, Value: []int64{int64(1 + rng.IntN(50))},
			Label: map[string][]string{labels.Thread: {threads[rng.IntN(2)]}},
			// From 10: pprof's Copy, which the test's reference goes
			// through, drops a numeric label of 0 without a unit.
			NumLabel: map[string][]int64{labels.Timestamp: {int64(10 + i*10)}},
		})
		if i%7 == 3 { // some samples have no time
			p.Sample[i].NumLabel = nil
		}
	}
	return p
}

// TestFiltersMatchPprof: a tree built with the filters is the tree of the
// profile pprof's FilterSamplesByName filtered, for random profiles and
// filters, from a profile's own samples and from compact ones (shared
// stacks too).
func TestFiltersMatchPprof(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 5))
	exprs := []string{"", "", "f1", "f[23]", `^f4$`, "b\\.go", "libz", "f5|f7", "nosuch"}
	for i := range 300 {
		spec := Filters{exprs[rng.IntN(len(exprs))], exprs[rng.IntN(len(exprs))], exprs[rng.IntN(len(exprs))], exprs[rng.IntN(len(exprs))]}
		opts := Options{Timeline: i%2 == 0, CallSites: i%3 == 0, Prune: i%5 == 0}
		p := randomFilterProfile(rng, 40+rng.IntN(60))

		ref := p.Copy()
		re := func(s string) *regexp.Regexp {
			if s == "" {
				return nil
			}
			return regexp.MustCompile(s)
		}
		if !spec.IsZero() {
			ref.FilterSamplesByName(re(spec.Focus), re(spec.Ignore), re(spec.Hide), re(spec.Show))
		}
		want, err := FromProfile(ref, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range []string{"profile", "compact", "shared"} {
			f, err := spec.Compile()
			if err != nil {
				t.Fatal(err)
			}
			o := opts
			o.Filter = f
			var src stacks.Source
			switch form {
			case "profile":
				src = stacks.FromProfile(p)
			case "compact":
				src = toStacks(p)
			default:
				src = toSharedStacks(p)
			}
			b := NewBuilder(o)
			if err := b.AddSamples(src); err != nil {
				t.Fatal(err)
			}
			got := b.Finish()
			if g, w := dumpTree(got), dumpTree(want); g != w {
				t.Fatalf("case %d, %s, %+v, filters %s:\ngot\n%s\nwant (pprof)\n%s", i, form, opts, spec, g, w)
			}
			sameTree(t, got, want)
		}
	}
}

// TestFilterKeepsSource: Apply neither changes its source nor shares its
// arrays, which the caller may reuse for the next profile.
func TestFilterKeepsSource(t *testing.T) {
	p := randomFilterProfile(rand.New(rand.NewPCG(1, 2)), 50)
	src := toSharedStacks(p)
	before := fmt.Sprint(src.Locations, src.Starts, src.Ends, src.Values, src.SampleThreads, src.Times)
	f, err := Filters{Hide: "f1", Ignore: "f9"}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	kept := f.Apply(src)
	if after := fmt.Sprint(src.Locations, src.Starts, src.Ends, src.Values, src.SampleThreads, src.Times); after != before {
		t.Fatal("Apply changed its source")
	}
	for i := range src.Values {
		src.Values[i] = -1
	}
	for i := range kept.Values {
		if kept.Values[i] < 0 {
			t.Fatal("the filtered samples share the source's values")
		}
	}
	if loc := p.Location[1]; len(loc.Line) != 1 || loc.Line[0].Function.Name != "f1" {
		t.Fatalf("Apply changed the profile's location: %+v", loc)
	}
}

// FuzzFilters: for any expressions that compile, the filtered tree is
// the tree of the profile pprof filtered.
func FuzzFilters(f *testing.F) {
	f.Add(uint64(1), "f1", "", "", "")
	f.Add(uint64(2), "", "f[23]", "^f4$", "")
	f.Add(uint64(3), "b\\.go", "libz", "f5|f7", "f[0-5]")
	f.Fuzz(func(t *testing.T, seed uint64, focus, ignore, hide, show string) {
		spec := Filters{focus, ignore, hide, show}
		fl, err := spec.Compile()
		if err != nil {
			return
		}
		p := randomFilterProfile(rand.New(rand.NewPCG(seed, 1)), 30)
		ref := p.Copy()
		re := func(s string) *regexp.Regexp {
			if s == "" {
				return nil
			}
			return regexp.MustCompile(s)
		}
		if !spec.IsZero() {
			ref.FilterSamplesByName(re(focus), re(ignore), re(hide), re(show))
		}
		want, err := FromProfile(ref, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromProfile(p, Options{Filter: fl})
		if err != nil {
			t.Fatal(err)
		}
		sameTree(t, got, want)
	})
}
