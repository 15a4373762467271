package convert

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/google/pprof/profile"
)

// ssDoc makes a speedscope document of frames a, b, c, d and the
// profiles given as JSON.
func ssDoc(profiles ...string) string {
	return `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[` +
		`{"name":"a","file":"a.py","line":3},{"name":"b"},{"name":"c","col":7},{"name":"d"}]},"profiles":[` +
		strings.Join(profiles, ",") + `]}`
}

// stackNames renders a sample as "a;b;c=v1,v2 (thread)", root first.
func stackNames(s *profile.Sample) string {
	var names []string
	for _, l := range slices.Backward(s.Location) {
		names = append(names, l.Line[0].Function.Name)
	}
	var vs []string
	for _, v := range s.Value {
		vs = append(vs, fmt.Sprint(v))
	}
	return strings.Join(names, ";") + "=" + strings.Join(vs, ",") + " (" + ThreadName(s) + ")"
}

func TestSpeedscope(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		in    string
		types string
		want  []string
	}{
		{"sampled, weights in microseconds, not integers",
			ssDoc(`{"type":"sampled","name":"main","unit":"microseconds","startValue":0,"endValue":3,"samples":[[0,1],[0],[]],"weights":[0.4,0.4,2.2]}`),
			"wall/nanoseconds", []string{"a;b=400 (main)", "a=400 (main)", "=2200 (main)"}},
		{"evented: time outside every frame has an empty stack",
			ssDoc(`{"type":"evented","name":"e","unit":"milliseconds","startValue":10,"endValue":20,"events":[` +
				`{"type":"O","frame":0,"at":11},{"type":"O","frame":2,"at":12},{"type":"C","frame":2,"at":15},{"type":"C","frame":0,"at":16}]}`),
			"wall/nanoseconds", []string{"=1000000 (e)", "a=1000000 (e)", "a;c=3000000 (e)", "a=1000000 (e)", "=4000000 (e)"}},
		{"every profile, in their own sample types and threads, same names numbered",
			ssDoc(`{"type":"sampled","name":"p","unit":"bytes","startValue":0,"endValue":1,"samples":[[3]],"weights":[64]}`,
				`{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":[[3,1]],"weights":[2]}`,
				`{"type":"evented","name":"","unit":"none","startValue":0,"endValue":0,"events":[]}`),
			"space/bytes samples/count", []string{"d=64,0 (p)", "d;b=0,2 (p #2)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Read(strings.NewReader(tt.in), "in.json", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "speedscope" {
				t.Fatalf("sniffed as %s", res.Format)
			}
			var types []string
			for _, st := range res.Profile.SampleType {
				types = append(types, st.Type+"/"+st.Unit)
			}
			if got := strings.Join(types, " "); got != tt.types {
				t.Errorf("sample types %s, want %s", got, tt.types)
			}
			var got []string
			for _, s := range res.Profile.Sample {
				got = append(got, stackNames(s))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("samples\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSpeedscopeFrameFields(t *testing.T) {
	t.Parallel()
	res, err := Read(strings.NewReader(ssDoc(`{"type":"sampled","name":"m","unit":"none","startValue":0,"endValue":1,"samples":[[0,2]],"weights":[1]}`)), "in", Options{})
	if err != nil {
		t.Fatal(err)
	}
	leaf, root := res.Profile.Sample[0].Location[0].Line[0], res.Profile.Sample[0].Location[1].Line[0]
	if root.Function.Name != "a" || root.Function.Filename != "a.py" || root.Line != 3 || leaf.Function.Name != "c" || leaf.Column != 7 {
		t.Errorf("frames %+v %+v, %+v %+v", root, *root.Function, leaf, *leaf.Function)
	}
}

// Evented profiles with a time unit carry the time each stack began, and
// merging (Options.MergeSamples) keeps the totals.
func TestSpeedscopeTimesAndMerge(t *testing.T) {
	t.Parallel()
	doc := ssDoc(`{"type":"evented","name":"e","unit":"seconds","startValue":0,"endValue":4,"events":[` +
		`{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":1},{"type":"C","frame":1,"at":2},{"type":"O","frame":1,"at":3},{"type":"C","frame":1,"at":4},{"type":"C","frame":0,"at":4}]}`)
	res, err := Read(strings.NewReader(doc), "in", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	for _, s := range res.Profile.Sample {
		times = append(times, s.NumLabel["timestamp_ns"][0])
	}
	if want := []int64{0, 1e9, 2e9, 3e9}; !slices.Equal(times, want) {
		t.Errorf("times %v, want %v", times, want)
	}
	merged, err := Read(strings.NewReader(doc), "in", Options{MergeSamples: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range merged.Profile.Sample {
		got = append(got, stackNames(s))
	}
	if want := []string{"a=2000000000 (e)", "a;b=2000000000 (e)"}; !slices.Equal(got, want) {
		t.Errorf("merged %q, want %q", got, want)
	}
	if _, err := Read(strings.NewReader(doc), "in", Options{MaxTimedSamples: 3}); err == nil || !strings.Contains(err.Error(), "more than 3 timestamped samples") {
		t.Errorf("err = %v, want the sample limit", err)
	}
}

func TestSpeedscopeErrors(t *testing.T) {
	t.Parallel()
	sampled := func(rest string) string {
		return ssDoc(`{"type":"sampled","name":"s","unit":"none","startValue":0,"endValue":1,` + rest + `}`)
	}
	evented := func(events string) string {
		return ssDoc(`{"type":"evented","name":"e","unit":"none","startValue":0,"endValue":10,"events":[` + events + `]}`)
	}
	for _, tt := range []struct{ name, in, want string }{
		{"no profiles", `{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}`,
			`in: byte 0: speedscope: the file holds no profiles (expected a non-empty "profiles" array)`},
		{"invalid JSON", `{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[}`,
			`in: byte 76: speedscope: invalid JSON: invalid character '}' looking for beginning of value`},
		{"wrong type of value", `{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[{"weights":["1"]}]}`,
			`in: byte 91: speedscope: expected a number for profiles.weights, found string`},
		{"unknown unit", ssDoc(`{"type":"sampled","name":"s","unit":"hours","samples":[],"weights":[]}`),
			`in: speedscope profile 0 ("s"): unit "hours": expected none, nanoseconds, microseconds, milliseconds, seconds or bytes`},
		{"unknown type", ssDoc(`{"type":"tree","name":"s","unit":"none"}`),
			`in: speedscope profile 0 ("s"): type "tree": expected "sampled" or "evented"`},
		{"weights missing", sampled(`"samples":[[0]]`),
			`in: speedscope profile 0 ("s"): 1 samples but 0 weights: expected one weight per sample`},
		{"frame out of range", sampled(`"samples":[[0],[4]],"weights":[1,1]`),
			`in: speedscope profile 0 ("s"), sample 1: frame 4 does not exist (shared.frames has 4)`},
		{"negative weight", sampled(`"samples":[[0]],"weights":[-1]`),
			`in: speedscope profile 0 ("s"), sample 0: weight: negative sample value: -1`},
		{"events out of order", evented(`{"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":4}`),
			`in: speedscope profile 0 ("e"), event 1: at 4: expected events in order, between startValue 0 and endValue 10 (the previous one is at 5)`},
		{"event after the end", evented(`{"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":11}`),
			`in: speedscope profile 0 ("e"), event 1: at 11: expected events in order, between startValue 0 and endValue 10 (the previous one is at 5)`},
		{"close without open", evented(`{"type":"C","frame":1,"at":1}`),
			`in: speedscope profile 0 ("e"), event 0: closes frame 1 ("b") at 1, but no frame is open`},
		{"unknown event", evented(`{"type":"X","frame":1,"at":1}`),
			`in: speedscope profile 0 ("e"), event 0: type "X": expected "O" (open) or "C" (close)`},
		{"end before start", ssDoc(`{"type":"evented","name":"e","unit":"none","startValue":5,"endValue":1,"events":[]}`),
			`in: speedscope profile 0 ("e"): endValue 1 is before startValue 5`},
		{"frame without a name", `{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{}]},"profiles":[{"type":"sampled","name":"s","unit":"none","samples":[[0]],"weights":[1]}]}`,
			`in: speedscope profile 0 ("s"), sample 0: frame 0 has no name`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.in), "in", Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func FuzzSpeedscope(f *testing.F) {
	f.Add([]byte(ssDoc(`{"type":"sampled","name":"m","unit":"seconds","startValue":0,"endValue":1,"samples":[[0,1],[2]],"weights":[0.5,1]}`)))
	f.Add([]byte(ssDoc(`{"type":"evented","name":"e","unit":"none","startValue":0,"endValue":9,"events":[{"type":"O","frame":0,"at":1},{"type":"C","frame":0,"at":2}]}`)))
	for _, p := range corpus.NextFiles(f) {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(speedscopeSchema)) {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(data), "fuzz", Options{From: "speedscope", MaxDecompressed: 1 << 20})
		CheckRead(t, "fuzz", res, err)
	})
}

// Names longer than maxNameBytes are cut, with one warning, in both JSON
// readers.
func TestJSONNamesCut(t *testing.T) {
	t.Parallel()
	long := "x" + strings.Repeat("é", maxNameBytes/2) // the cut falls inside a character
	for _, in := range []string{
		`{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"` + long + `"}]},` +
			`"profiles":[{"type":"sampled","name":"s","unit":"none","samples":[[0]],"weights":[1]}]}`,
		strings.Replace(geckoDoc(`{"schema":{"stack":0},"data":[[3]]}`), "Label::Work", long, 1),
	} {
		res, err := Read(strings.NewReader(in), "in", Options{})
		if err != nil {
			t.Fatal(err)
		}
		name := res.Profile.Sample[0].Location[0].Line[0].Function.Name
		if len(name) != maxNameBytes-1 || name != long[:maxNameBytes-1] {
			t.Errorf("%s: name of %d bytes, want the first %d", res.Format, len(name), maxNameBytes-1)
		}
		want := fmt.Sprintf("1 strings are longer than %d bytes; each is cut to its first %d bytes", maxNameBytes, maxNameBytes)
		if !slices.Equal(res.Warnings, []string{want}) {
			t.Errorf("%s: warnings %q", res.Format, res.Warnings)
		}
	}
}
