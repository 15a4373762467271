package report

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// BenchmarkDiffReports writes every diff format for a synthetic pair
// (tools/synth, 50,000 stacks, about 200,000 tree nodes per side); the
// comparison is done once, outside the timing. Run with -benchmem.
func BenchmarkDiffReports(b *testing.B) {
	pair := synth.Generate(synth.Config{Seed: 1, Stacks: 50_000})
	build := func(p *profile.Profile) []*cct.Tree {
		bl := cct.NewBuilder(cct.Options{Prune: true})
		if err := bl.Add(p); err != nil {
			b.Fatal(err)
		}
		return []*cct.Tree{bl.Finish()}
	}
	res, err := diff.Compare(build(pair.Base), build(pair.New), diff.Options{Tree: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d union-tree nodes, %d causes, %d critical-graph nodes", len(res.Tree), len(res.Causes), len(res.Graph))
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"text", func(w io.Writer) error { return writeDiffText(w, res, diffTextOptions{}) }},
		{"json", func(w io.Writer) error { return writeDiffJSON(w, res) }},
		{"dot", func(w io.Writer) error { return writeDiffDOT(w, res, diffDOTOptions{}) }},
		{"pprof", func(w io.Writer) error { return writeDiffPprof(w, res) }},
		{"markdown", func(w io.Writer) error { return writeDiffMarkdown(w, res, diffMarkdownOptions{}) }},
		{"html", func(w io.Writer) error { return writeDiffHTML(w, res, diffHTMLOptions{}) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := f.write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadDiffJSON decodes a large JSON result with the reader's
// fast path and with encoding/json, which decode the same (the
// differential tests in diff_json_read_fast_test.go): the comparison of
// a tools/synth pair of 50,000 stacks a side with Intersect, which
// lists every critical-graph node and untested path (as ctdiff diff
// --aggregate intersect --format json writes it). Run with -benchmem.
func BenchmarkReadDiffJSON(b *testing.B) {
	pair := synth.Generate(synth.Config{Seed: 1, Stacks: 50_000})
	build := func(p *profile.Profile) []*cct.Tree {
		bl := cct.NewBuilder(cct.Options{Prune: true})
		if err := bl.Add(p); err != nil {
			b.Fatal(err)
		}
		return []*cct.Tree{bl.Finish()}
	}
	res, err := diff.Compare(build(pair.Base), build(pair.New), diff.Options{Aggregate: diff.Intersect})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeDiffJSON(&buf, res); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	var want diffJSON
	if err := fastUnmarshal(data, &want); err != nil {
		b.Fatalf("the fast path gave up on ctdiff's own result: %v", err)
	}
	b.Logf("%d bytes of JSON", len(data))
	for _, d := range []struct {
		name      string
		unmarshal func([]byte, *diffJSON) error
	}{
		{"fast", func(data []byte, v *diffJSON) error { return fastUnmarshal(data, v) }},
		{"encoding-json", func(data []byte, v *diffJSON) error { return json.Unmarshal(data, v) }},
	} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var v diffJSON
				if err := d.unmarshal(data, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
