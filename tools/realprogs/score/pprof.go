package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// pprofRanks returns fn's 1-based rows in `go tool pprof -top -diff_base`,
// sorted as pprof sorts them (by flat, then with -cum by cum; with
// -diff_base both by the absolute delta); 0 when fn is not listed.
func (m *measurer) pprofRanks(base, new, fn string) (flat, cum int, err error) {
	for i, extra := range [][]string{nil, {"-cum"}} {
		args := []string{"tool", "pprof", "-top", "-nodefraction=0", "-edgefraction=0"}
		args = append(args, extra...)
		args = append(args, "-diff_base="+base, new)
		out, err := m.goTool(args)
		if err != nil {
			return 0, 0, err
		}
		rank := rankOf(out, fn)
		if i == 0 {
			flat = rank
		} else {
			cum = rank
		}
	}
	return flat, cum, nil
}

func (m *measurer) goTool(args []string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(m.cfg.gocmd, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", m.cfg.gocmd, strings.Join(args, " "), err, errorLine(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// topRow matches a row of pprof's -top table: flat, flat%, sum%, cum, cum%
// and the name.
var topRow = regexp.MustCompile(`^\s*(-?[\d.]+\w*)\s+(-?[\d.]+)%\s+(-?[\d.]+)%\s+(-?[\d.]+\w*)\s+(-?[\d.]+)%\s+(.+)$`)

// rankOf is the 1-based row of fn in a -top table, 0 when absent.
func rankOf(top []byte, fn string) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(top))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		mt := topRow.FindStringSubmatch(sc.Text())
		if mt == nil {
			continue
		}
		n++
		if strings.TrimSuffix(mt[6], " (inline)") == fn {
			return n
		}
	}
	return 0
}

// totalRE matches pprof's header "Total samples = 2.35s" (or "13098.98ms").
var totalRE = regexp.MustCompile(`Total samples = ([\d.]+)(ns|us|µs|ms|s|mins|hrs)\b`)

// profileTotal is a profile's total in seconds, as pprof -top reports it.
func (m *measurer) profileTotal(p string) (float64, error) {
	out, err := m.goTool([]string{"tool", "pprof", "-top", "-nodecount=1", p})
	if err != nil {
		return 0, err
	}
	mt := totalRE.FindSubmatch(out)
	if mt == nil {
		return 0, fmt.Errorf("%s: no total in pprof's header", p)
	}
	v, err := strconv.ParseFloat(string(mt[1]), 64)
	if err != nil {
		return 0, err
	}
	scale := map[string]float64{"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "mins": 60, "hrs": 3600}
	return v * scale[string(mt[2])], nil
}

// profileCost is the change of the merged new total over the merged base
// total, in percent (both sides have as many runs).
func (m *measurer) profileCost(old, new string) *float64 {
	o, err1 := m.profileTotal(old)
	n, err2 := m.profileTotal(new)
	if err1 != nil || err2 != nil || o == 0 {
		return nil
	}
	v := 100 * (n/o - 1)
	return &v
}

// cpuCost is the change of the mean process CPU time (user + system) that
// run.sh wrote to cpu.tsv, in percent; nil when the file is absent.
func cpuCost(path string) *float64 {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sum := map[string]float64{}
	cnt := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		if len(fs) != 4 || (fs[0] != "old" && fs[0] != "new") {
			continue
		}
		u, err1 := strconv.ParseFloat(fs[2], 64)
		s, err2 := strconv.ParseFloat(fs[3], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		sum[fs[0]] += u + s
		cnt[fs[0]]++
	}
	if cnt["old"] == 0 || cnt["new"] == 0 || sum["old"] == 0 {
		return nil
	}
	v := 100 * ((sum["new"]/float64(cnt["new"]))/(sum["old"]/float64(cnt["old"])) - 1)
	return &v
}
