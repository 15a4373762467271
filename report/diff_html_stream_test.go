package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// checkHTMLData checks that writeHTMLData writes what json.Marshal does.
func checkHTMLData(t *testing.T, d *htmlData) {
	t.Helper()
	want, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeHTMLData(&got, d); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		i := 0
		for i < got.Len() && i < len(want) && got.Bytes()[i] == want[i] {
			i++
		}
		t.Fatalf("writeHTMLData differs from json.Marshal at byte %d:\ngot:  %.200q\nwant: %.200q", i, got.Bytes()[i:], want[i:])
	}
}

func TestWriteHTMLData(t *testing.T) {
	checkHTMLData(t, &htmlData{}) // nil slices are null
	checkHTMLData(t, &htmlData{Frames: [][3]string{}, Parent: []int32{}})
	hostileNames := []string{hostileName, "\x00\x1f\x7f\b\f\n\r\t", "\xff\xfe\xc3", "\u2028\u2029", "&amp;<!--", "ü🙂", "plain"}
	d := &htmlData{Unit: "<nanoseconds>", RunsTotal: [2]int{3, math.MaxInt32}, Pruned: 12345}
	for i := range 40000 {
		name := hostileNames[i%len(hostileNames)]
		d.Frames = append(d.Frames, [3]string{name, "file&" + name, shortFunc(name)})
		d.Parent = append(d.Parent, int32(i-1))
		d.Frame = append(d.Frame, int32(i))
		d.Kind = append(d.Kind, int8(i%3))
		d.Base = append(d.Base, int64(i)*1e9)
		d.New = append(d.New, math.MinInt64+int64(i))
		d.BaseSelf = append(d.BaseSelf, -int64(i))
		d.NewSelf = append(d.NewSelf, math.MaxInt64-int64(i))
		d.Side = append(d.Side, int8(i%3-1))
		d.Cause = append(d.Cause, int32(i%5))
		d.BaseRuns = append(d.BaseRuns, int32(i%4))
		d.NewRuns = append(d.NewRuns, math.MaxInt32)
	}
	d.Frames[7] = [3]string{strings.Repeat("long<", 30000), "", ""}
	checkHTMLData(t, d)
}

const hostileName = "<img src=x onerror=alert(1)>\"`|*_[x](y)\\l\n</script><!--\u2028"

// The page of a synthetic comparison, cut to fewer nodes than it has,
// holds the graph's data as json.Marshal writes it, where the template put
// it, once.
func TestDiffHTMLDataInPage(t *testing.T) {
	pair := synth.Generate(synth.Config{Seed: 9, Stacks: 3000})
	build := func(p *profile.Profile) []*cct.Tree {
		b := cct.NewBuilder(cct.Options{Prune: true})
		if err := b.Add(p); err != nil {
			t.Fatal(err)
		}
		return []*cct.Tree{b.Finish()}
	}
	opts := diff.DefaultOptions()
	opts.Tree = true
	res, err := diff.Compare(build(pair.Base), build(pair.New), opts)
	if err != nil {
		t.Fatal(err)
	}
	o := diffHTMLOptions{MinShare: 1.0 / 5000, MaxNodes: 2000, MaxCauses: 100}
	var page bytes.Buffer
	if err := writeDiffHTML(&page, res, o); err != nil {
		t.Fatal(err)
	}
	d, _ := htmlTree(res, o)
	if d.Pruned == 0 {
		t.Fatal("nothing pruned: the cut goes untested")
	}
	want, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	open := []byte(`<script type="application/json" id="ctdiff-data">`)
	if n := bytes.Count(page.Bytes(), open); n != 1 {
		t.Fatalf("%d data elements", n)
	}
	_, rest, _ := bytes.Cut(page.Bytes(), open)
	data, _, ok := bytes.Cut(rest, []byte("</script>"))
	if !ok || !bytes.Equal(data, want) {
		t.Fatalf("the page's data (%d bytes) is not json.Marshal's (%d bytes)", len(data), len(want))
	}
	if bytes.Contains(page.Bytes(), []byte(htmlDataMarker)) {
		t.Fatal("the placeholder is left in the page")
	}
}

// childLists lists children in order, as appending to per-parent lists
// does.
func TestChildLists(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 10, 5000} {
		parent := make([]int32, n)
		want := map[int32][]int32{}
		for i := range parent {
			parent[i] = -1
			if i > 0 {
				parent[i] = int32(r.IntN(i))
				want[parent[i]] = append(want[parent[i]], int32(i))
			}
		}
		c := childLists(parent)
		for x := range parent {
			if got := c.of(int32(x)); !slices.Equal(got, want[int32(x)]) {
				t.Fatalf("%d nodes: children of %d are %v, want %v", n, x, got, want[int32(x)])
			}
		}
	}
}
