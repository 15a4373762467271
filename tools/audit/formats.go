package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/google/pprof/profile"
)

// Formats are what Pair.Write can write a run as: pprof (runNN.pb.gz),
// folded stacks (runNN.folded, one "a;b;c COUNT" line a stack) or a V8
// .cpuprofile (runNN.cpuprofile, every sample one tick of the period).
var Formats = []string{"pprof", "folded", "cpuprofile"}

// writeRun writes one run in format f to path without its extension.
func writeRun(path, f string, p *profile.Profile) error {
	switch f {
	case "", "pprof":
		return writeProfile(path+".pb.gz", p)
	case "folded":
		return os.WriteFile(path+".folded", []byte(folded(p)), 0o644)
	case "cpuprofile":
		b, err := json.Marshal(cpuprofile(p))
		if err != nil {
			return err
		}
		return os.WriteFile(path+".cpuprofile", b, 0o644)
	}
	return fmt.Errorf("audit: unknown format %q (one of %s)", f, strings.Join(Formats, ", "))
}

// names returns a sample's frames, root first, inline lines as frames.
func names(s *profile.Sample) []string {
	var fs []string
	for _, ln := range lines(s) {
		fs = append(fs, ln.Function.Name)
	}
	return fs
}

// lines returns a sample's lines, root first, inline lines as frames.
func lines(s *profile.Sample) []profile.Line {
	var ls []profile.Line
	for i := len(s.Location) - 1; i >= 0; i-- {
		l := s.Location[i]
		if len(l.Line) == 0 && l.Mapping != nil {
			// unsymbolized: named as cct names it
			ls = append(ls, profile.Line{Function: &profile.Function{Name: fmt.Sprintf("%s!0x%x", l.Mapping.File[strings.LastIndex(l.Mapping.File, "/")+1:], l.Address)}})
		}
		for j := len(l.Line) - 1; j >= 0; j-- {
			ls = append(ls, l.Line[j])
		}
	}
	return ls
}

func folded(p *profile.Profile) string {
	var b strings.Builder
	for _, s := range p.Sample {
		fmt.Fprintf(&b, "%s %d\n", strings.Join(names(s), ";"), s.Value[0])
	}
	return b.String()
}

// The .cpuprofile's JSON: CDP's Profiler.Profile.
type (
	v8Frame struct {
		FunctionName string `json:"functionName"`
		ScriptID     string `json:"scriptId"`
		URL          string `json:"url"`
		LineNumber   int    `json:"lineNumber"`
		ColumnNumber int    `json:"columnNumber"`
	}
	v8Node struct {
		ID        int     `json:"id"`
		CallFrame v8Frame `json:"callFrame"`
		HitCount  int     `json:"hitCount"`
		Children  []int   `json:"children,omitempty"`
	}
	v8Profile struct {
		Nodes      []*v8Node `json:"nodes"`
		StartTime  int64     `json:"startTime"`
		EndTime    int64     `json:"endTime"`
		Samples    []int     `json:"samples"`
		TimeDeltas []int64   `json:"timeDeltas"`
	}
)

// cpuprofile turns p into a V8 profile under "(root)": each sample of
// count n is n ticks of p's period, in the samples' order.
func cpuprofile(p *profile.Profile) v8Profile {
	root := &v8Node{ID: 1, CallFrame: v8Frame{FunctionName: "(root)", ScriptID: "0", LineNumber: -1, ColumnNumber: -1}}
	out := v8Profile{Nodes: []*v8Node{root}, StartTime: 1_000_000}
	ids := map[string]int{"": 1}
	tick := p.Period / 1000 // µs
	t := out.StartTime
	for _, s := range p.Sample {
		key, parent := "", root
		for _, ln := range lines(s) {
			n := ln.Function.Name
			key += ";" + n
			id, ok := ids[key]
			if !ok {
				id = len(out.Nodes) + 1
				ids[key] = id
				url := ""
				if !strings.HasPrefix(n, "(") {
					url = "file:///app/" + strings.ReplaceAll(n[:max(0, strings.LastIndex(n, "."))], "/", "_") + ".js"
				}
				line, col := 1, 1
				if ln.Function.StartLine > 0 {
					// the moved-sources cases: where the bundle put it
					line, col = int(ln.Function.StartLine), int(ln.Column)
				}
				out.Nodes = append(out.Nodes, &v8Node{ID: id, CallFrame: v8Frame{FunctionName: n, ScriptID: "1", URL: url, LineNumber: line, ColumnNumber: col}})
				parent.Children = append(parent.Children, id)
			}
			parent = out.Nodes[id-1]
		}
		for range s.Value[0] {
			parent.HitCount++
			out.Samples = append(out.Samples, parent.ID)
			out.TimeDeltas = append(out.TimeDeltas, tick)
			t += tick
		}
	}
	out.EndTime = t
	return out
}
