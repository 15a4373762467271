// Command score measures whether ctdiff's verdict names the function whose
// code changed, on the profiles that run.sh records.
//
// For each case of cases.tsv it runs `ctdiff diff --format json` on three
// runs a side (K=3) and on each pairing of one run a side (K=1: run i against
// run i), and reads the top cause's blamed function: the cause's
// blame.function when present, else the last frame of its path. It also
// ranks the changed function in `go tool pprof -top -diff_base` (flat and
// cumulative), and prints a Markdown table and a summary line per K.
//
// Exit status: 0 when the measurement ran (whatever it measured), 2 on the
// tool's own errors (bad flags, missing data).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type config struct {
	ctdiff string
	data   string
	cases  string
	json   string
	gocmd  string
	runs   int
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		var pe parseError
		if !errors.As(err, &pe) {
			fmt.Fprintln(stderr, "score:", err)
		}
		return 2
	}
	cases, err := readCases(cfg.cases)
	if err != nil {
		fmt.Fprintln(stderr, "score:", err)
		return 2
	}
	for i := range cases {
		if err := cases[i].findRuns(cfg.data, cfg.runs); err != nil {
			fmt.Fprintln(stderr, "score:", err)
			return 2
		}
	}
	work, err := os.MkdirTemp("", "realprogs-score-")
	if err != nil {
		fmt.Fprintln(stderr, "score:", err)
		return 2
	}
	defer os.RemoveAll(work)
	m := &measurer{cfg: cfg, work: work, log: stderr}
	res := m.measureAll(cases)
	writeMarkdown(stdout, res)
	if cfg.json != "" {
		if err := writeJSON(cfg.json, res); err != nil {
			fmt.Fprintln(stderr, "score:", err)
			return 2
		}
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.ctdiff, "ctdiff", "", "path of the ctdiff binary to measure (required)")
	fs.StringVar(&cfg.data, "data", "", "directory that run.sh recorded (required)")
	fs.StringVar(&cfg.cases, "cases", "", "cases.tsv (required)")
	fs.StringVar(&cfg.json, "json", "", "also write the rows as JSON to this file")
	fs.StringVar(&cfg.gocmd, "go", "go", "go command whose `go tool pprof` ranks the changed function")
	fs.IntVar(&cfg.runs, "runs", 3, "runs a side for the K=runs comparison and the number of K=1 pairings")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: score -ctdiff PATH -data DIR -cases cases.tsv [-json FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, parseError{err} // the flag package has printed it
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, f := range []struct{ name, v string }{{"-ctdiff", cfg.ctdiff}, {"-data", cfg.data}, {"-cases", cfg.cases}} {
		if f.v == "" {
			return cfg, fmt.Errorf("%s is required", f.name)
		}
	}
	if cfg.runs < 1 {
		return cfg, fmt.Errorf("-runs %d: need at least 1", cfg.runs)
	}
	if _, err := exec.LookPath(cfg.ctdiff); err != nil {
		return cfg, fmt.Errorf("-ctdiff %s: %w", cfg.ctdiff, err)
	}
	if st, err := os.Stat(cfg.data); err != nil || !st.IsDir() {
		return cfg, fmt.Errorf("-data %s: not a directory", cfg.data)
	}
	return cfg, nil
}

// parseError is an error the flag package has reported already.
type parseError struct{ error }

// extOf is the profile file extension run.sh records for a language.
func extOf(lang string) (string, error) {
	switch lang {
	case "go":
		return ".pb.gz", nil
	case "js":
		return ".cpuprofile", nil
	case "java":
		return ".jfr", nil
	}
	return "", fmt.Errorf("unknown language %q", lang)
}

// findRuns fills the case's run files, run1..runN a side.
func (c *caseRow) findRuns(data string, runs int) error {
	ext, err := extOf(c.Lang)
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	for _, side := range []string{"old", "new"} {
		var files []string
		for i := 1; i <= runs; i++ {
			p := filepath.Join(data, c.Name, side, fmt.Sprintf("run%d%s", i, ext))
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%s: missing data: %s (record it with run.sh)", c.Name, p)
			}
			files = append(files, p)
		}
		if side == "old" {
			c.old = files
		} else {
			c.new = files
		}
	}
	c.cpuFile = filepath.Join(data, c.Name, "cpu.tsv")
	return nil
}

// errorLine is the last line of a command's stderr that is not a warning
// (ctdiff prints its warnings before the error), else its first line.
func errorLine(s string) string {
	lines := nonEmptyLines(s)
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.Contains(lines[i], "warning:") {
			return lines[i]
		}
	}
	if len(lines) > 0 {
		return lines[0]
	}
	return ""
}
