package report

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reading a diff result and writing it again gives the same bytes: the
// reader keeps every field the writer writes (but the benchmark verdict,
// which these results have none of).
func TestReadDiffJSONRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/diff-*.json.golden")
	if len(files) == 0 {
		t.Fatal("no diff JSON goldens in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := ReadDiffJSON(bytes.NewReader(data), f)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range res.Causes {
				if c.Node < 0 || !res.Graph[c.Node].Cause || res.Graph[c.Node].Delta != c.Delta {
					t.Errorf("cause %d points at graph node %d, not at its own", i, c.Node)
				}
			}
			var out bytes.Buffer
			if err := writeDiffJSON(&out, res); err != nil {
				t.Fatal(err)
			}
			if out.String() != string(data) {
				t.Errorf("written again, %s differs:\n%s", f, out.String())
			}
		})
	}
}

func TestReadDiffJSONErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"not JSON", "hello", "r.json:1:1: invalid JSON: invalid character 'h' looking for beginning of value"},
		{"truncated", "{\n  \"schema\": \"ctdiff.diff/v1\",\n  \"unit\"", "r.json:3:9: invalid JSON: unexpected end of JSON input"},
		{"no schema", `{"unit": "nanoseconds"}`, `r.json: no "schema" field: not a ctdiff diff result (ctdiff diff --format json writes ctdiff.diff/v2)`},
		{"other schema", `{"schema": "ctdiff.diff/v3"}`, `r.json: schema "ctdiff.diff/v3", expected ctdiff.diff/v2: this ctdiff reads ctdiff.diff/v2 and ctdiff.diff/v1 results (ctdiff diff --format json)`},
		{"verdict status", `{"schema": "ctdiff.diff/v2", "unit": "nanoseconds", "verdict": {"status": "faster"}}`, `r.json: verdict: "status" "faster", expected regressed, improved, unchanged or inconclusive`},
		{"improvement kind", `{"schema": "ctdiff.diff/v2", "unit": "nanoseconds", "improvements": [{"kind": "regressed"}]}`, `r.json: improvements[0]: "kind" "regressed", expected improved or removed`},
		{"cct schema", `{"schema": "ctdiff.cct/v1", "threads": []}`, `r.json: schema "ctdiff.cct/v1", expected ctdiff.diff/v2`},
		{"schema type", `{"schema": 1}`, `r.json:1:13: field "schema": expected string, found number`},
		{"field type", "{\"schema\": \"ctdiff.diff/v1\",\n\"unit\": \"ns\", \"causes\": [{\"delta\": \"big\"}]}", `r.json:2:41: field "causes.delta": expected int64, found string`},
		{"no unit", `{"schema": "ctdiff.diff/v1"}`, `r.json: "unit" is empty`},
		{"cause kind", `{"schema": "ctdiff.diff/v1", "unit": "nanoseconds", "causes": [{"kind": "faster"}]}`, `r.json: causes[0]: "kind" "faster", expected regressed or added`},
		{"graph parent", `{"schema": "ctdiff.diff/v1", "unit": "nanoseconds", "critical_graph": [{"parent": 0, "kind": "regressed"}]}`, `r.json: critical_graph[0]: parent 0, expected -1 or an earlier node's index`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadDiffJSON(strings.NewReader(tt.in), "r.json")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// A result over the size limit is refused as too large, before it is
// parsed, and one at the limit is read.
func TestReadDiffJSONSizeLimit(t *testing.T) {
	t.Parallel()
	in := `{"schema": "ctdiff.diff/v1", "unit": "nanoseconds"}`
	if _, err := readDiffJSON(strings.NewReader(in), "r.json", len(in)); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	_, err := readDiffJSON(strings.NewReader(in+" "), "r.json", len(in))
	if want := "r.json: larger than 0 MiB, the most ctdiff reads of a diff result"; err == nil || err.Error() != want {
		t.Errorf("over the limit: error %v, want %q", err, want)
	}
	var se *DiffJSONSizeError
	if !errors.As(err, &se) || *se != (DiffJSONSizeError{Name: "r.json", Limit: len(in)}) {
		t.Errorf("over the limit: error %#v, want a *DiffJSONSizeError of %d bytes", err, len(in))
	}
}

// FuzzReadDiffJSON: any input is read or refused with an error naming it,
// never a panic; what is read writes out as JSON that reads back to the
// same result.
func FuzzReadDiffJSON(f *testing.F) {
	files, _ := filepath.Glob("testdata/diff-*.json.golden")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"schema":"ctdiff.diff/v1","unit":"nanoseconds","causes":[{"kind":"added","path":[{"function":"f"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadDiffJSON(bytes.NewReader(data), "in.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "in.json") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line naming the input: %q", err)
			}
			return
		}
		var once, twice bytes.Buffer
		if err := writeDiffJSON(&once, res); err != nil {
			t.Fatal(err)
		}
		again, err := ReadDiffJSON(bytes.NewReader(once.Bytes()), "again.json")
		if err != nil {
			t.Fatalf("written result does not read back: %v", err)
		}
		if err := writeDiffJSON(&twice, again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("not stable:\n%s\n%s", once.Bytes(), twice.Bytes())
		}
	})
}

// A long chain in the critical graph, every node marked a cause, reads in
// linear time: causes find their nodes by path hashes, not by paths.
func TestReadDiffJSONDeepGraph(t *testing.T) {
	const depth = 50000
	var b strings.Builder
	b.WriteString(`{"schema":"ctdiff.diff/v1","unit":"nanoseconds","critical_graph":[{"parent":-1,"thread":"main","is_thread":true}`)
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, `,{"parent":%d,"thread":"main","function":"f%d","kind":"regressed","cause":true}`, i-1, i)
	}
	b.WriteString(`],"causes":[{"thread":"main","kind":"regressed","path":[`)
	for i := 1; i <= depth; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"function":"f%d"}`, i)
	}
	b.WriteString(`]}]}`)
	res, err := ReadDiffJSON(strings.NewReader(b.String()), "deep.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Causes[0].Node; n != depth {
		t.Errorf("the cause points at node %d, want %d", n, depth)
	}
}
