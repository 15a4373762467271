package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/ctdiff/ctdiff/internal/golden"
)

// msTrees builds one pruned tree per run from folded lines with values in
// milliseconds, runs separated by "|".
func msTrees(t *testing.T, runs string) []*cct.Tree {
	t.Helper()
	var out []*cct.Tree
	for _, run := range strings.Split(runs, "|") {
		var lines []string
		for _, l := range strings.Split(run, "\n") {
			l = strings.TrimSpace(l)
			if l == "" {
				continue
			}
			i := strings.LastIndexByte(l, ' ')
			var v int64
			fmt.Sscan(l[i+1:], &v)
			lines = append(lines, fmt.Sprintf("%s %d", l[:i], v*1e6))
		}
		out = append(out, cctest.Tree(t, cct.Options{Prune: true}, lines...))
	}
	return out
}

var diffCases = []struct {
	name      string
	base, new string
	opts      diff.Options
}{
	{
		// Three noisy runs per side; render.layout regressed, a small
		// validate call was added, a handler ran in one new run only, and
		// parse@app.js was renamed.
		name: "stats",
		base: `thread=main main;parse@app.js;tokenize@app.js 300
			thread=main main;render@app.js;layout@app.js 200
			thread=main main;render@app.js;paint@app.js 100
			thread=gc sweep@runtime 40
			|thread=main main;parse@app.js;tokenize@app.js 310
			thread=main main;render@app.js;layout@app.js 195
			thread=main main;render@app.js;paint@app.js 104
			thread=gc sweep@runtime 38
			|thread=main main;parse@app.js;tokenize@app.js 295
			thread=main main;render@app.js;layout@app.js 205
			thread=main main;render@app.js;paint@app.js 98
			thread=gc sweep@runtime 45`,
		new: `thread=main main;parseAll@app.js;tokenize@app.js 305
			thread=main main;validate@app.js 20
			thread=main main;render@app.js;layout@app.js 320
			thread=main main;render@app.js;paint@app.js 101
			thread=gc sweep@runtime 41
			|thread=main main;parseAll@app.js;tokenize@app.js 298
			thread=main main;validate@app.js 22
			thread=main main;render@app.js;layout@app.js 330
			thread=main main;render@app.js;paint@app.js 99
			thread=gc sweep@runtime 39
			thread=main hover@app.js 60
			|thread=main main;parseAll@app.js;tokenize@app.js 302
			thread=main main;validate@app.js 19
			thread=main main;render@app.js;layout@app.js 318
			thread=main main;render@app.js;paint@app.js 103
			thread=gc sweep@runtime 44`,
	},
	{
		// ZAM's running example (Section 2.1): two identical pairs,
		// intersect.
		name: "intersect",
		base: zamBase + "|" + zamBase,
		new:  zamNew + "|" + zamNew,
		opts: diff.Options{Aggregate: diff.Intersect},
	},
	{
		// The same example as one pair: nothing can be tested, and the
		// leaves are listed as untested, not as causes.
		name: "one-pair",
		base: zamBase,
		new:  zamNew,
	},
	{
		// Nothing changed beyond noise; a very deep path shows elision.
		name: "unchanged",
		base: `main;run;step0;step1;step2;step3;step4;step5;step6;step7;step8;step9;step10;step11;step12;step13;leaf 100
			main;run;other 50
			|main;run;step0;step1;step2;step3;step4;step5;step6;step7;step8;step9;step10;step11;step12;step13;leaf 101
			main;run;other 49`,
		new: `main;run;step0;step1;step2;step3;step4;step5;step6;step7;step8;step9;step10;step11;step12;step13;leaf 103
			main;run;other 50
			|main;run;step0;step1;step2;step3;step4;step5;step6;step7;step8;step9;step10;step11;step12;step13;leaf 99
			main;run;other 52`,
	},
}

const (
	zamBase = `evHandler;handle 40
			queryRenderedFeatures 10
			queryRenderedFeatures;f;rendered;query 100
			queryRenderedFeatures;f;rendered;query;layer;parse 150
			queryRenderedFeatures;b;d;layer 100
			hover 30
			promiseHandler;then 40`
	zamNew = `promiseHandler;then 45
			queryRenderedFeatures 5
			queryRenderedFeatures;f;rendered;query 100
			queryRenderedFeatures;f;rendered;query;layer;parse 150
			queryRenderedFeatures;f;rendered;query;layer;utf 70
			queryRenderedFeatures;b;d;layer 100
			queryRenderedFeatures;b;d;layer;utf 65
			evHandler;handle 42`
)

func compare(t *testing.T, base, nw string, opts diff.Options) *diff.Result {
	t.Helper()
	res, err := diff.Compare(msTrees(t, base), msTrees(t, nw), opts)
	if err != nil {
		t.Fatal(err)
	}
	res.Base.Profiles = []string{"old/run1.pb.gz"}
	res.New.Profiles = []string{"new/run1.pb.gz"}
	return res
}

func TestDiffGolden(t *testing.T) {
	for _, tt := range diffCases {
		t.Run(tt.name, func(t *testing.T) {
			res := compare(t, tt.base, tt.new, tt.opts)
			var text, js bytes.Buffer
			if err := writeDiffText(&text, res, diffTextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := writeDiffJSON(&js, res); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/diff-"+tt.name+".txt.golden", text.Bytes())
			golden.Check(t, "testdata/diff-"+tt.name+".json.golden", js.Bytes())
		})
	}
}

// The JSON has every field of the v1 schema, with its type.
func TestDiffJSONSchema(t *testing.T) {
	res := compare(t, diffCases[0].base, diffCases[0].new, diff.Options{})
	var b bytes.Buffer
	if err := writeDiffJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	type field struct {
		path string
		kind string // "string", "number", "array", "object", "null|number"
	}
	check := func(obj map[string]any, where string, fields ...field) {
		for _, f := range fields {
			v, ok := obj[f.path]
			if !ok {
				t.Errorf("%s: missing %q", where, f.path)
				continue
			}
			var got string
			switch v.(type) {
			case string:
				got = "string"
			case float64:
				got = "number"
			case []any:
				got = "array"
			case map[string]any:
				got = "object"
			case nil:
				got = "null"
			}
			if !strings.Contains(f.kind, got) {
				t.Errorf("%s.%s is %s, want %s", where, f.path, got, f.kind)
			}
		}
	}
	check(doc, "top", field{"schema", "string"}, field{"unit", "string"}, field{"min_delta", "number"},
		field{"base", "object"}, field{"new", "object"}, field{"causes", "array"}, field{"ranked_paths", "array"},
		field{"overlap", "object"}, field{"topology", "object"}, field{"critical_graph_nodes", "number"}, field{"tree_nodes", "number"})
	if doc["schema"] != "ctdiff.diff/v2" || doc["unit"] != "nanoseconds" {
		t.Errorf("schema %v, unit %v", doc["schema"], doc["unit"])
	}
	check(doc, "top", field{"verdict", "object"}, field{"improvements", "array"}, field{"untested", "array"})
	check(doc["verdict"].(map[string]any), "verdict", field{"status", "string"}, field{"summary", "string"},
		field{"top_cause", "object"}, field{"detectable", "number"}, field{"runs_needed", "number"})
	for _, s := range []string{"base", "new"} {
		check(doc[s].(map[string]any), s, field{"profiles", "array"}, field{"total", "number"})
	}
	causes := doc["causes"].([]any)
	if len(causes) == 0 {
		t.Fatal("no causes to check")
	}
	c := causes[0].(map[string]any)
	check(c, "cause", field{"thread", "string"}, field{"path", "array"}, field{"kind", "string"},
		field{"base", "number"}, field{"new", "number"}, field{"delta", "number"})
	check(c["path"].([]any)[0].(map[string]any), "cause.path[0]", field{"function", "string"}, field{"file", "string"})
	check(c, "cause", field{"blame", "object"}, field{"breakdown", "object"})
	check(c["blame"].(map[string]any), "cause.blame", field{"function", "string"}, field{"file", "string"})
	check(c["breakdown"].(map[string]any), "cause.breakdown", field{"delta", "number"}, field{"calls", "array"})
	rp := doc["ranked_paths"].([]any)[0].(map[string]any)
	check(rp, "ranked path", field{"rank", "number"}, field{"cost", "number"}, field{"path", "array"})
	check(rp["path"].([]any)[0].(map[string]any), "ranked path node", field{"function", "string"}, field{"file", "string"}, field{"cost", "number"})
	check(doc["overlap"].(map[string]any), "overlap", field{"percent", "number"}, field{"noise_floor_percent", "null|number"},
		field{"common_tree_percent", "number"}, field{"score", "number"})
	topo := doc["topology"].(map[string]any)
	check(topo, "topology", field{"added", "array"}, field{"removed", "array"})
	added := topo["added"].([]any)
	if len(added) == 0 {
		t.Fatal("no added subtree to check")
	}
	check(added[0].(map[string]any), "topology.added[0]", field{"thread", "string"}, field{"path", "array"}, field{"nodes", "number"}, field{"weight", "number"})

	// With one base run there is no noise floor: null, not 0.
	one := compare(t, "main;a 10", "main;a 20", diff.Options{})
	b.Reset()
	if err := writeDiffJSON(&b, one); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"noise_floor_percent": null`) || !strings.Contains(b.String(), `"causes": [`) {
		t.Errorf("one run per side:\n%s", b.String())
	}
}

// Names from profiles are untrusted: JSON escapes them, and text prints
// them on one line.
func TestDiffHostileNames(t *testing.T) {
	res := compare(t, "main;a 10|main;a 10", "main;a 10\nmain;\"evil\\\"\u00e9\u0007name</script> 200|main;a 10\nmain;\"evil\\\"\u00e9\u0007name</script> 200", diff.Options{})
	var b bytes.Buffer
	if err := writeDiffJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.String())
	}
	if got := doc["causes"].([]any)[0].(map[string]any)["path"].([]any)[1].(map[string]any)["function"]; got != "\"evil\\\"\u00e9\u0007name</script>" {
		t.Errorf("function %q survived JSON as %q", "\"evil\\\"\u00e9\u0007name</script>", got)
	}
}
