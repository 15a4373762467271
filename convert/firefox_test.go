package convert

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

// geckoDoc makes a gecko profile (meta.version 24, interval 0.5 ms) of one
// thread, with a library at 0x1000-0x2000, and the processes given.
func geckoDoc(samples string, processes ...string) string {
	return `{"meta":{"version":24,"interval":0.5,"startTime":1000,"processType":0},` +
		`"libs":[{"start":4096,"end":8192,"offset":0,"name":"libx.so","path":"/lib/libx.so","breakpadId":"ABC0"}],` +
		`"threads":[{"name":"GeckoMain","processType":"default","pid":7,"tid":8,` +
		`"samples":` + samples + `,` +
		`"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1],[1,2],[1,3]]},` +
		`"frameTable":{"schema":{"location":0,"implementation":1,"line":2,"column":3},"data":[[0],[1,null,12,4],[2],[3]]},` +
		`"stringTable":["(root)","run (https://x.test/app.js:10:2)","0x1234","Label::Work"]}],` +
		`"processes":[` + strings.Join(processes, ",") + `]}`
}

// processedDoc makes a processed profile (version 58: shared strings and
// sources, libraries at the top, time deltas) of one thread.
func processedDoc(samples string) string {
	return `{"meta":{"version":31,"preprocessedProfileVersion":58,"interval":2,"startTime":0},` +
		`"libs":[{"name":"liby.so","path":"/lib/liby.so","debugName":"liby.so","breakpadId":"B0","codeId":"C0D"}],` +
		`"shared":{"stringArray":["main","0x20","liby.so","app.js","jsfn"],"sources":{"length":1,"uuid":[null],"filename":[3]}},` +
		`"threads":[{"name":"Main","processName":"app","pid":"5","tid":6,"samples":` + samples + `,` +
		`"stackTable":{"length":3,"prefix":[null,0,0],"frame":[0,1,2]},` +
		`"frameTable":{"length":3,"address":[-1,32,-1],"inlineDepth":[0,0,0],"func":[0,1,2],"line":[null,null,7],"column":[null,null,null]},` +
		`"funcTable":{"length":3,"name":[0,1,4],"resource":[-1,0,-1],"source":[null,null,0],"lineNumber":[null,null,5],"isJS":[false,false,true]},` +
		`"resourceTable":{"length":1,"lib":[0],"name":[2],"host":[null],"type":[1]}}]}`
}

func TestFirefox(t *testing.T) {
	t.Parallel()
	nested := `{"meta":{"version":24,"interval":1,"startTime":2000},"libs":[],"threads":[{"name":"Content","processType":"tab","pid":9,` +
		`"samples":{"schema":{"stack":0,"time":1},"data":[[0,0.25]]},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0]]},` +
		`"frameTable":{"schema":{"location":0},"data":[[0]]},"stringTable":["content work"]}]}`
	for _, tt := range []struct {
		name, in, types string
		want            []string
	}{
		{"gecko: samples count once and are interval × count of wall time, nested processes too",
			geckoDoc(`{"schema":{"stack":0,"time":1},"data":[[1,0],[2,0.5],[3,1],[null,1.5]]}`, nested),
			"samples/count wall/nanoseconds",
			[]string{"(root);run=1,500000 (default/GeckoMain)", "(root);run;0x1234=1,500000 (default/GeckoMain)",
				"(root);run;Label::Work=1,500000 (default/GeckoMain)", "=1,500000 (default/GeckoMain)", "content work=1,1000000 (tab/Content)"}},
		{"gecko: a weight column",
			geckoDoc(`{"schema":{"stack":0,"time":1,"weight":2},"data":[[1,0,3],[1,1,null]]}`),
			"samples/count wall/nanoseconds",
			[]string{"(root);run=3,1500000 (default/GeckoMain)", "(root);run=1,500000 (default/GeckoMain)"}},
		{"gecko: traced milliseconds",
			geckoDoc(`{"schema":{"stack":0,"time":1,"weight":2},"weightType":"tracing-ms","data":[[1,0,0.25],[2,1,2]]}`),
			"wall/nanoseconds",
			[]string{"(root);run=250000 (default/GeckoMain)", "(root);run;0x1234=2000000 (default/GeckoMain)"}},
		{"processed 58: shared strings, sources, time deltas, weights",
			processedDoc(`{"length":3,"stack":[1,2,0],"timeDeltas":[1,1,1],"weight":[2,1,1],"weightType":"samples"}`),
			"samples/count wall/nanoseconds",
			[]string{"main;0x20=2,4000000 (app/Main)", "main;jsfn=1,2000000 (app/Main)", "main=1,2000000 (app/Main)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := Read(strings.NewReader(tt.in), "in.json", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "firefox" {
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

// Native frames keep their address and library (a mapping); JavaScript
// frames their script, line and the line the function starts at; samples
// their time, pid and tid.
func TestFirefoxFrames(t *testing.T) {
	t.Parallel()
	res, err := Read(strings.NewReader(geckoDoc(`{"schema":{"stack":0,"time":1},"data":[[2,0.5]]}`)), "in", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Profile.Sample[0]
	native, js := s.Location[0], s.Location[1]
	if m := native.Mapping; native.Address != 0x1234 || m == nil || m.File != "/lib/libx.so" || m.Start != 0x1000 || m.Limit != 0x2000 || m.BuildID != "ABC0" {
		t.Errorf("native location %+v, mapping %+v", native, native.Mapping)
	}
	if l := js.Line[0]; l.Function.Filename != "https://x.test/app.js" || l.Function.StartLine != 10 || l.Line != 12 || l.Column != 4 {
		t.Errorf("JS frame %+v %+v", l, *l.Function)
	}
	if got := fmt.Sprint(s.NumLabel["timestamp_ns"], s.NumLabel["pid"], s.NumLabel["tid"]); got != "[1000500000] [7] [8]" {
		t.Errorf("time, pid, tid %s", got)
	}
	res, err = Read(strings.NewReader(processedDoc(`{"length":1,"stack":[1],"time":[3]}`)), "in", Options{})
	if err != nil {
		t.Fatal(err)
	}
	native = res.Profile.Sample[0].Location[0]
	if m := native.Mapping; native.Address != 0x20 || m == nil || m.File != "/lib/liby.so" || m.BuildID != "C0D" || native.Line[0].Function.Filename != "liby.so" {
		t.Errorf("processed native location %+v, mapping %+v", native, native.Mapping)
	}
}

// The DevTools performance panel's export wraps a gecko profile.
func TestFirefoxDevToolsExport(t *testing.T) {
	t.Parallel()
	in := `{"label":"x","duration":1,"markers":[],"profile":` + geckoDoc(`{"schema":{"stack":0,"time":1},"data":[[1,0]]}`) + `,"fileType":"Recorded Performance Data"}`
	res, err := Read(strings.NewReader(in), "in", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "firefox" || len(res.Profile.Sample) != 1 {
		t.Errorf("read as %s with %d samples", res.Format, len(res.Profile.Sample))
	}
}

func TestFirefoxMergeAndLimit(t *testing.T) {
	t.Parallel()
	in := geckoDoc(`{"schema":{"stack":0,"time":1},"data":[[1,3],[2,1],[1,2]]}`)
	res, err := Read(strings.NewReader(in), "in", Options{MergeSamples: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Profile.Sample {
		got = append(got, stackNames(s)+fmt.Sprint(s.NumLabel["timestamp_ns"]))
	}
	// By earliest time: run;0x1234 at 1 ms, run at 2 ms.
	if want := []string{"(root);run;0x1234=1,500000 (default/GeckoMain)[1001000000]", "(root);run=2,1000000 (default/GeckoMain)[1002000000]"}; !slices.Equal(got, want) {
		t.Errorf("merged %q, want %q", got, want)
	}
	if _, err := Read(strings.NewReader(in), "in", Options{MaxTimedSamples: 2}); err == nil || !strings.Contains(err.Error(), "more than 2 timestamped samples") {
		t.Errorf("err = %v, want the sample limit", err)
	}
}

func TestFirefoxErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, in, want string }{
		{"gecko too old", `{"meta":{"version":2,"interval":1,"startTime":0},"threads":[]}`,
			`in: byte 0: firefox: gecko format meta.version 2: expected 3 to 31`},
		{"processed too old", `{"meta":{"version":4,"preprocessedProfileVersion":23,"interval":1,"startTime":0},"threads":[]}`,
			`in: byte 0: firefox: processed format version 23: expected 24 to 58`},
		{"no threads", `{"meta":{"version":24,"interval":1,"startTime":0},"threads":[]}`,
			`in: byte 0: firefox: the profile has no threads`},
		{"no meta", `{"label":"x","duration":1,"markers":[]}`,
			`in: byte 0: firefox: no "meta" object: expected a gecko or processed Firefox profile`},
		{"stack out of range", geckoDoc(`{"schema":{"stack":0,"time":1},"data":[[9,0]]}`),
			`in: firefox thread 0 ("GeckoMain"), sample 0: stack 9 does not exist (the stack table has 4)`},
		{"prefix out of range", strings.Replace(geckoDoc(`{"schema":{"stack":0},"data":[[0]]}`), `[[null,0],`, `[[7,0],`, 1),
			`in: firefox thread 0 ("GeckoMain"), stackTable row 0: prefix 7 does not exist (the stack table has 4)`},
		{"prefix loop", strings.Replace(geckoDoc(`{"schema":{"stack":0},"data":[[1]]}`), `[[null,0],`, `[[1,0],`, 1),
			`in: firefox thread 0 ("GeckoMain"), sample 0: stack 1: its prefixes form a loop or exceed 1000000 frames`},
		{"no stack column", geckoDoc(`{"schema":{"time":0},"data":[[0]]}`),
			`in: firefox thread 0 ("GeckoMain"), samples: the schema has no stack column`},
		{"not a number", geckoDoc(`{"schema":{"stack":0},"data":[["x"]]}`),
			`in: firefox thread 0 ("GeckoMain"), sample 0: expected a number in column 0, found "x"`},
		{"weight type", geckoDoc(`{"schema":{"stack":0},"weightType":"joules","data":[[0]]}`),
			`in: firefox thread 0 ("GeckoMain"), samples: weightType "joules": expected samples, tracing-ms or bytes`},
		{"negative weight", processedDoc(`{"length":1,"stack":[0],"time":[0],"weight":[-2]}`),
			`in: firefox thread 0 ("Main"), sample 0: weight: negative sample value: -2`},
		{"weights and stacks differ", processedDoc(`{"length":1,"stack":[0],"time":[0],"weight":[1,1]}`),
			`in: firefox thread 0 ("Main"), samples: 2 weights for 1 stacks: expected one each per sample`},
		{"string out of range", strings.Replace(processedDoc(`{"length":1,"stack":[0],"time":[0]}`), `"name":[0,1,4]`, `"name":[40,1,4]`, 1),
			`in: firefox thread 0 ("Main"), sample 0: frame 0: func 0 name: string 40 does not exist (the string array has 5)`},
		{"no interval", strings.Replace(geckoDoc(`{"schema":{"stack":0},"data":[[0]]}`), `"interval":0.5`, `"interval":0`, 1),
			`in: firefox thread 0 ("GeckoMain"): meta.interval 0: expected a positive number of milliseconds`},
		{"start time out of range", strings.Replace(geckoDoc(`{"schema":{"stack":0},"data":[[0]]}`), `"startTime":1000`, `"startTime":1e20`, 1),
			`in: firefox thread 0 ("GeckoMain"): meta.startTime 1e+20: expected milliseconds since 1970`},
		{"invalid JSON", `{"meta":{"version":24,"interval":1,"startTime":0},"threads":[}`,
			`in: byte 61: firefox: invalid JSON: invalid character '}' looking for beginning of value`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(tt.in), "in", Options{From: "firefox"})
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func FuzzFirefox(f *testing.F) {
	f.Add([]byte(geckoDoc(`{"schema":{"stack":0,"time":1,"weight":2},"data":[[1,0,3],[3,1,null]]}`)))
	f.Add([]byte(processedDoc(`{"length":3,"stack":[1,2,0],"timeDeltas":[1,1,1],"weight":[2,1,1]}`)))
	for _, p := range corpus.NextFiles(f) {
		if b, err := os.ReadFile(p); err == nil && sniffFirefox(b[:min(len(b), sniffSize)]) && len(b) <= fuzzSeedMax {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(data), "fuzz", Options{From: "firefox", MaxDecompressed: 1 << 20})
		CheckRead(t, "fuzz", res, err)
	})
}
