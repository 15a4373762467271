package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// A caseRow is one line of cases.tsv: name, language, kind (change or
// noise), the changed function as the profile names it, the measured cost
// and a description.
type caseRow struct {
	Name     string
	Lang     string
	Kind     string
	Function string
	Cost     string
	Desc     string

	old, new []string
	cpuFile  string
}

func (c *caseRow) isNoise() bool { return c.Kind == "noise" }

// readCases parses cases.tsv; lines starting with # are comments.
func readCases(path string) ([]caseRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-cases: %w", err)
	}
	defer f.Close()
	var out []caseRow
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		c, err := parseCase(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("%s:%d: case %s listed twice", path, line, c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return out, nil
}

func parseCase(text string) (caseRow, error) {
	f := strings.Split(text, "\t")
	if len(f) != 6 {
		return caseRow{}, fmt.Errorf("expected 6 tab-separated fields (name, language, kind, function, cost, description), got %d", len(f))
	}
	c := caseRow{Name: f[0], Lang: f[1], Kind: f[2], Function: f[3], Cost: f[4], Desc: f[5]}
	if _, err := extOf(c.Lang); err != nil {
		return c, err
	}
	switch c.Kind {
	case "change":
		if c.Function == "" || c.Function == "-" {
			return c, fmt.Errorf("case %s: a change case needs its changed function", c.Name)
		}
	case "noise":
	default:
		return c, fmt.Errorf("case %s: kind %q, expected change or noise", c.Name, c.Kind)
	}
	return c, nil
}
