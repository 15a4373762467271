package convert

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

// The weighers of speedscope and Firefox files decode them with nothing
// but encoding/json into generic values and add up what the formats
// define as a profile's weight: a sampled speedscope profile's weights,
// an evented one's endValue − startValue; a Firefox thread's samples (or
// their weights), and those times meta.interval as wall time.

// ssUnitTypes is the sample type of each speedscope unit, and the factor
// to it.
var ssUnitTypes = map[string]struct {
	typ   string
	scale float64
}{
	"none": {"samples/count", 1}, "bytes": {"space/bytes", 1},
	"nanoseconds": {"wall/nanoseconds", 1}, "microseconds": {"wall/nanoseconds", 1e3},
	"milliseconds": {"wall/nanoseconds", 1e6}, "seconds": {"wall/nanoseconds", 1e9},
}

func weighSpeedscope(t *testing.T, data []byte) map[string]int64 {
	t.Helper()
	var doc struct {
		Profiles []map[string]any
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, p := range doc.Profiles {
		u := ssUnitTypes[p["unit"].(string)]
		var total float64
		if p["type"] == "evented" {
			total = p["endValue"].(float64) - p["startValue"].(float64)
		} else {
			for _, w := range p["weights"].([]any) {
				total += w.(float64)
			}
		}
		out[u.typ] += int64(math.Round(total * u.scale))
	}
	return out
}

func weighFirefox(t *testing.T, data []byte) map[string]int64 {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if p, ok := doc["profile"].(map[string]any); ok && doc["meta"] == nil {
		doc = p // the DevTools export
	}
	out := map[string]int64{}
	for _, th := range firefoxThreads(t, doc, 0) {
		typ := "samples/count"
		switch th.weightType {
		case "tracing-ms":
			out["wall/nanoseconds"] += int64(math.Round(th.weights * 1e6))
			continue
		case "bytes":
			typ = "space/bytes"
		default:
			out["wall/nanoseconds"] += int64(math.Round(th.weights * th.interval * 1e6))
		}
		out[typ] += int64(math.Round(th.weights))
	}
	return out
}

// firefoxThreadWeight is a Firefox thread as the weigher sees it.
type firefoxThreadWeight struct {
	name       string
	samples    int
	weights    float64 // the sum of the weight column, or the samples
	weightType string
	interval   float64
}

// firefoxThreads lists the threads of a profile of either format, with
// those of the processes nested in a gecko profile.
func firefoxThreads(t *testing.T, doc map[string]any, depth int) []firefoxThreadWeight {
	meta := doc["meta"].(map[string]any)
	interval := meta["interval"].(float64)
	_, processed := meta["preprocessedProfileVersion"]
	var out []firefoxThreadWeight
	var nested []any
	threads, _ := doc["threads"].([]any)
	for _, th := range threads {
		if s, ok := th.(string); ok {
			nested = append(nested, s)
			continue
		}
		m := th.(map[string]any)
		samples := m["samples"].(map[string]any)
		w := firefoxThreadWeight{name: m["name"].(string), interval: interval}
		w.weightType, _ = samples["weightType"].(string)
		if processed {
			stacks := samples["stack"].([]any)
			w.samples, w.weights = len(stacks), float64(len(stacks))
			if ws, ok := samples["weight"].([]any); ok {
				w.weights = 0
				for _, x := range ws {
					w.weights += x.(float64)
				}
			}
		} else {
			rows := samples["data"].([]any)
			w.samples, w.weights = len(rows), float64(len(rows))
			if col, ok := samples["schema"].(map[string]any)["weight"].(float64); ok {
				w.weights = 0
				for _, r := range rows {
					if x, ok := r.([]any)[int(col)].(float64); ok {
						w.weights += x
					} else {
						w.weights++
					}
				}
			}
		}
		out = append(out, w)
	}
	if ps, ok := doc["processes"].([]any); ok {
		nested = append(nested, ps...)
	}
	for _, p := range nested {
		if s, ok := p.(string); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(s), &m); err != nil {
				t.Fatal(err)
			}
			p = m
		}
		out = append(out, firefoxThreads(t, p.(map[string]any), depth+1)...)
	}
	return out
}

// TestNextFormatsTotals converts each public speedscope and Firefox file
// and compares its totals, profile by profile and thread by thread, with
// what a plain decode of it holds; the invalid ones are refused in one
// line that names the format and what is wrong.
func TestNextFormatsTotals(t *testing.T) {
	files := corpus.NextFiles(t)
	if d := corpus.Dir(); d != "" { // where they move once read
		for _, dir := range []string{"speedscope", "firefox"} {
			m, _ := filepath.Glob(filepath.Join(d, dir, "*"))
			files = append(files, m...)
		}
	}
	if len(files) == 0 {
		t.Skip("the next formats' files (../shared/next-formats) are absent")
	}
	invalid := map[string]string{
		"speedscope-invalid-incomplete-trace.json":    `event 0: frame 0 ("A") opened at 0 is never closed (expected a "C" event for it by endValue 100)`,
		"speedscope-invalid-out-of-order-events.json": `event 6: closes frame 1 ("B") at 4, but the innermost open frame is 0 ("A"), opened at 2 by event 3 (expected frames to close in the reverse order they opened)`,
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			res, err := ReadFile(path, Options{})
			if want, bad := invalid[name]; bad {
				if err == nil {
					t.Fatal("read, want an error")
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, path+`: speedscope profile 0 ("p1"), `) || !strings.HasSuffix(msg, want) || strings.Contains(msg, "\n") {
					t.Errorf("err = %s, want %s: speedscope profile 0 (\"p1\"), %s", msg, path, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			weigh := weighers[res.Format]
			want := weigh(t, data)
			got := map[string]int64{}
			for i, s := range SampleSums(res.Profile) {
				got[sampleTypeName(res.Profile, i)] = s
			}
			for typ, w := range want {
				if got[typ] != w {
					t.Errorf("%s: %d converted, the file holds %d", typ, got[typ], w)
				}
			}
			// Every profile or thread is there, as a thread of its own.
			parts := nextFormatParts(t, res.Format, data)
			threads := map[string]bool{}
			for _, s := range res.Profile.Sample {
				threads[ThreadName(s)+"\x00"+strings.Join(s.Label["pid"], ",")+"\x00"+strings.Join(s.Label["tid"], ",")] = true
			}
			if len(threads) != parts {
				t.Errorf("%d threads converted, the file holds %d profiles or threads", len(threads), parts)
			}
			t.Logf("%s: %d profiles/threads, totals %v, converted %v", name, parts, want, got)
		})
	}
}

// nextFormatParts counts the profiles (speedscope) or the threads with
// samples (Firefox) of a file.
func nextFormatParts(t *testing.T, format string, data []byte) int {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if format == "speedscope" {
		return len(doc["profiles"].([]any))
	}
	if p, ok := doc["profile"].(map[string]any); ok && doc["meta"] == nil {
		doc = p
	}
	n := 0
	for _, th := range firefoxThreads(t, doc, 0) {
		if th.samples > 0 {
			n++
		}
	}
	return n
}
