package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A row is one comparison: a case at K runs a side (Pair 0), or one pairing
// of run Pair against run Pair (K=1).
type row struct {
	Case     string `json:"case"`
	Lang     string `json:"language"`
	Kind     string `json:"kind"`
	Function string `json:"function,omitempty"`
	K        int    `json:"k"`
	Pair     int    `json:"pair,omitempty"`
	// Blamed is the top tested cause's blamed function; empty without one.
	Blamed string `json:"blamed"`
	// Tested is "yes" when there is a tested cause, "untested" when only
	// untested findings are left, "none" otherwise.
	Tested string `json:"tested"`
	// UntestedBlamed is the largest untested finding's blamed function.
	UntestedBlamed string `json:"untested_blamed,omitempty"`
	Hit            bool   `json:"hit"`
	Causes         int    `json:"causes"`
	OffPath        int    `json:"off_path"`
	Untested       int    `json:"untested"`
	// PprofFlat and PprofCum are the changed function's 1-based rows in
	// go tool pprof -top -diff_base, by flat and by cum; 0 when absent.
	PprofFlat int    `json:"pprof_flat_rank"`
	PprofCum  int    `json:"pprof_cum_rank"`
	Error     string `json:"error,omitempty"`
	// Stderr holds what ctdiff printed on stderr (its warnings).
	Stderr []string `json:"stderr,omitempty"`
}

// A caseCost is a case's measured cost: the change in mean profile total
// and in mean process CPU time, in percent.
type caseCost struct {
	Case     string   `json:"case"`
	Lang     string   `json:"language"`
	Kind     string   `json:"kind"`
	Function string   `json:"function"`
	Listed   string   `json:"listed_cost"`
	Profile  *float64 `json:"profile_cost_pct"`
	CPU      *float64 `json:"cpu_cost_pct"`
	Error    string   `json:"error,omitempty"`
}

type results struct {
	Costs []caseCost `json:"cases"`
	Rows  []row      `json:"rows"`
	Runs  int        `json:"runs"`
}

type measurer struct {
	cfg       config
	work      string
	log       io.Writer
	seq       int
	converted map[string]string
}

func (m *measurer) measureAll(cases []caseRow) results {
	res := results{Runs: m.cfg.runs}
	for i := range cases {
		c := &cases[i]
		fmt.Fprintf(m.log, "score: %s\n", c.Name)
		old, new, cost := m.merged(c)
		res.Costs = append(res.Costs, cost)
		if m.cfg.runs > 1 {
			res.Rows = append(res.Rows, m.compare(c, c.old, c.new, old, new, m.cfg.runs, 0))
		}
		for p := 1; p <= m.cfg.runs; p++ {
			o, n := m.single(c, c.old[p-1]), m.single(c, c.new[p-1])
			res.Rows = append(res.Rows, m.compare(c, c.old[p-1:p], c.new[p-1:p], o, n, 1, p))
		}
	}
	return res
}

// compare runs ctdiff on the runs and pprof on their pprof forms.
func (m *measurer) compare(c *caseRow, old, new []string, pOld, pNew string, k, pair int) row {
	r := row{Case: c.Name, Lang: c.Lang, Kind: c.Kind, K: k, Pair: pair, Tested: "none"}
	if !c.isNoise() {
		r.Function = c.Function
	}
	out, stderr, err := m.ctdiff(old, new)
	r.Stderr = stderr
	if err != nil {
		r.Error = err.Error()
		return r
	}
	judge(&r, out, c)
	if !c.isNoise() && pOld != "" && pNew != "" {
		r.PprofFlat, r.PprofCum, err = m.pprofRanks(pOld, pNew, c.Function)
		if err != nil && r.Error == "" {
			r.Error = err.Error()
		}
	}
	return r
}

// ctdiff runs `ctdiff diff --format json` with each side as a list file;
// it returns the parsed output and the lines ctdiff wrote on stderr.
func (m *measurer) ctdiff(old, new []string) (*diffOutput, []string, error) {
	args := []string{"diff", "--format", "json"}
	for _, side := range [][]string{old, new} {
		if len(side) == 1 {
			args = append(args, side[0])
			continue
		}
		list, err := m.listFile(side)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, "@"+list)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(m.cfg.ctdiff, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	lines := nonEmptyLines(stderr.String())
	if err != nil && stdout.Len() == 0 {
		return nil, lines, fmt.Errorf("ctdiff %s: %v: %s", strings.Join(args, " "), err, errorLine(stderr.String()))
	}
	var out diffOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, lines, fmt.Errorf("ctdiff %s: output is not JSON: %v", strings.Join(args, " "), err)
	}
	return &out, lines, nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func (m *measurer) listFile(files []string) (string, error) {
	m.seq++
	p := filepath.Join(m.work, fmt.Sprintf("list%d.txt", m.seq))
	return p, os.WriteFile(p, []byte(strings.Join(files, "\n")+"\n"), 0o644)
}

// merged returns both sides' runs merged into one pprof profile each (for
// pprof's ranks) and the case's measured cost.
func (m *measurer) merged(c *caseRow) (string, string, caseCost) {
	cost := caseCost{Case: c.Name, Lang: c.Lang, Kind: c.Kind, Function: c.Function, Listed: c.Cost}
	old, errOld := m.toPprof(c, c.old)
	new, errNew := m.toPprof(c, c.new)
	for _, err := range []error{errOld, errNew} {
		if err != nil && cost.Error == "" {
			cost.Error = err.Error()
		}
	}
	if cost.Error == "" {
		cost.Profile = m.profileCost(old, new)
	}
	cost.CPU = cpuCost(c.cpuFile)
	return old, new, cost
}

// single returns one run in pprof form ("" when it cannot be converted).
func (m *measurer) single(c *caseRow, run string) string {
	p, err := m.toPprof(c, []string{run})
	if err != nil {
		fmt.Fprintf(m.log, "score: %s: %v\n", c.Name, err)
		return ""
	}
	return p
}

// toPprof returns the runs as one pprof file. Other formats are converted
// run by run with ctdiff convert; several runs are merged with
// go tool pprof -proto, the reference the table's pprof columns are read
// from.
func (m *measurer) toPprof(c *caseRow, runs []string) (string, error) {
	var pb []string
	for _, r := range runs {
		if c.Lang == "go" {
			pb = append(pb, r)
			continue
		}
		p, err := m.convert(r)
		if err != nil {
			return "", err
		}
		pb = append(pb, p)
	}
	if len(pb) == 1 {
		return pb[0], nil
	}
	out := m.temp(c.Name)
	var stdout bytes.Buffer
	if err := m.command(&stdout, m.cfg.gocmd, append([]string{"tool", "pprof", "-proto"}, pb...)...); err != nil {
		return "", err
	}
	return out, os.WriteFile(out, stdout.Bytes(), 0o644)
}

// convert converts one run with ctdiff convert, once.
func (m *measurer) convert(run string) (string, error) {
	if p, ok := m.converted[run]; ok {
		return p, nil
	}
	out := m.temp(filepath.Base(run))
	if err := m.command(io.Discard, m.cfg.ctdiff, "convert", run, "-o", out); err != nil {
		return "", err
	}
	if m.converted == nil {
		m.converted = map[string]string{}
	}
	m.converted[run] = out
	return out, nil
}

func (m *measurer) temp(name string) string {
	m.seq++
	return filepath.Join(m.work, fmt.Sprintf("%s-%d.pb.gz", name, m.seq))
}

// command runs a command; its error names it and ctdiff's error line.
func (m *measurer) command(stdout io.Writer, name string, args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, errorLine(stderr.String()))
	}
	return nil
}
