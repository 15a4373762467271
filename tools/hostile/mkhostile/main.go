// Command mkhostile writes the hostile inputs at full size into a
// directory, for measuring the CLI (README, "Limits and errors"):
//
//	go run ./tools/hostile/mkhostile -o /tmp/hostile
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/ctdiff/ctdiff/tools/hostile"
)

func main() {
	dir := flag.String("o", "hostile", "output directory")
	only := flag.String("only", "", "write only the files whose names match this regular expression")
	flag.Parse()
	match, err := regexp.Compile(*only)
	if err != nil {
		fatal(err)
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fatal(err)
	}
	gz := func(body func(io.Writer) error) func(io.Writer) error {
		return func(w io.Writer) error { return hostile.Gzip(w, body) }
	}
	files := []struct {
		name string
		body func(io.Writer) error
	}{
		{"nested-1g.pb.gz", func(w io.Writer) error { return hostile.NestedGzipPprof(w, 1<<30) }},
		{"nested-8g.pb.gz", func(w io.Writer) error { return hostile.NestedGzipPprof(w, 8<<30) }},
		{"unknown-field-1g.pb.gz", gz(func(w io.Writer) error { return hostile.PprofUnknownField(w, 1<<30) })},
		{"whitespace-1g.perfView.xml.zip", func(w io.Writer) error { return hostile.PerfViewZipWhitespace(w, 1<<30) }},
		{"long-name-1g.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.CpuprofileLongName(w, 1<<30) })},
		{"chain-3000x44000.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.V8Chain(w, 3000, 44000, hostile.Deepest) })},
		{"chain-3000x44000-every.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.V8Chain(w, 3000, 44000, hostile.Every) })},
		{"chain-16k.cct.json.gz", gz(func(w io.Writer) error { return hostile.CCTChain(w, 16000) })},
		{"chain-1m-x130.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.V8Chain(w, 1_000_000, 130, hostile.Every) })},
		{"chain-16k-every.perfView.xml.gz", gz(func(w io.Writer) error { return hostile.PerfViewChain(w, 16000, 16000, hostile.Every) })},
		{"samples-30m.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.CpuprofileSamples(w, 30_000_000) })},
		{"samples-5m.perfView.xml.zip", func(w io.Writer) error { return hostile.PerfViewZipSamples(w, 5_000_000) }},
		{"samples-20m.perfView.xml.zip", func(w io.Writer) error { return hostile.PerfViewZipSamples(w, 20_000_000) }},
		{"rows-3m.wpa.csv.gz", gz(func(w io.Writer) error { return hostile.WPACSVRows(w, 3_000_000) })},
		{"samples-3m.perf.txt.gz", gz(func(w io.Writer) error { return hostile.PerfScriptSamples(w, 3_000_000) })},
		{"sampledprofile-1m.xperf.txt.gz", gz(func(w io.Writer) error { return hostile.XperfSamples(w, 1_000_000) })},
		{"deep-1m.folded.gz", gz(func(w io.Writer) error { return hostile.FoldedDeep(w, 1_000_000) })},
		{"deep-1m.perf.txt.gz", gz(func(w io.Writer) error { return hostile.PerfScriptDeep(w, 1_000_000) })},
		{"deep-1m.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.CpuprofileDeep(w, 1_000_000) })},
		{"comb-50k.cpuprofile.gz", gz(func(w io.Writer) error { return hostile.V8Comb(w, 50_000) })},
		{"deep-1.2m.perf.txt.gz", gz(func(w io.Writer) error { return hostile.PerfScriptDeep(w, 1_200_000) })},
		{"comb-16k-pad60m.perfView.xml.gz", gz(func(w io.Writer) error {
			return hostile.Padded(w, 60<<20, func(w io.Writer) error { return hostile.PerfViewComb(w, 16_000) })
		})},
		{"comb-16k-pad60m.cpuprofile.gz", gz(func(w io.Writer) error {
			return hostile.Padded(w, 60<<20, func(w io.Writer) error { return hostile.V8Comb(w, 16_000) })
		})},
		{"line-1g.perf.txt.gz", gz(func(w io.Writer) error { return hostile.PerfScriptLongLine(w, 1<<30) })},
		{"field-600m.wpa.csv.gz", gz(func(w io.Writer) error { return hostile.WPACSVQuotedField(w, 600<<20) })},
		{"name-200m.perf.txt.gz", gz(func(w io.Writer) error { return hostile.PerfScriptLongName(w, 200<<20) })},
		{"max-a.pb", func(w io.Writer) error { return hostile.Pprof(w, 1<<63-1) }},
		{"max-b.pb", func(w io.Writer) error { return hostile.Pprof(w, 1<<63-1) }},
		{"small.pb", func(w io.Writer) error { return hostile.Pprof(w, 1_000_000) }},
	}
	for _, f := range files {
		if !match.MatchString(f.name) {
			continue
		}
		if err := write(filepath.Join(*dir, f.name), f.body); err != nil {
			fatal(err)
		}
	}
}

func write(path string, body func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := body(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	st, _ := f.Stat()
	fmt.Printf("%s\t%d bytes\n", path, st.Size())
	return f.Close()
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mkhostile:", err)
	os.Exit(1)
}
