package eval

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// sensRecall is the share of the kept injected cases method m finds at
// Runs[k] and Shares[s], and how many cases there are.
func (r *SensResult) sensRecall(m, k, s int, keep func(*SensCase) bool) (float64, int) {
	found, n := 0, 0
	for _, c := range r.Cases {
		if c.Baseline || c.Skipped != "" || !keep(c) {
			continue
		}
		n++
		if c.Found[m][k][s] {
			found++
		}
	}
	return ratio(found, n), n
}

// flagged counts the kept baselines method m flags at Runs[k], of how many.
func (r *SensResult) flagged(m, k int, keep func(*SensCase) bool) (int, int) {
	bad, n := 0, 0
	for _, c := range r.Cases {
		if !c.Baseline || c.Skipped != "" || !keep(c) {
			continue
		}
		n++
		if c.False[m][k] {
			bad++
		}
	}
	return bad, n
}

// MinRecall is the recall the sensitivity asks for.
const MinRecall = 0.95

// Smallest returns the index of the smallest share from which method m
// finds at least MinRecall of the kept cases at every larger share, at
// Runs[k]; -1 if not even the largest.
func (r *SensResult) Smallest(m, k int, keep func(*SensCase) bool) int {
	best := -1
	for s := len(r.Config.Shares) - 1; s >= 0; s-- {
		rec, n := r.sensRecall(m, k, s, keep)
		if n == 0 || rec < MinRecall {
			break
		}
		best = s
	}
	return best
}

func sharePct(f float64) string {
	return strconv.FormatFloat(100*f, 'g', 3, 64) + "%"
}

// verdict is a sensitivity cell: the smallest share found with ≥ 95%
// recall, or why there is none.
func (r *SensResult) verdict(m, k int, keep func(*SensCase) bool, abs time.Duration) string {
	s := r.Smallest(m, k, keep)
	bad, n := r.flagged(m, k, keep)
	var cell string
	switch {
	case s < 0:
		cell = "none up to " + sharePct(r.Config.Shares[len(r.Config.Shares)-1])
	default:
		cell = sharePct(r.Config.Shares[s])
		if s == 0 {
			cell = "≤ " + cell // the smallest share tried
		}
		if abs > 0 {
			cell += fmt.Sprintf(" (%v)", roundDuration(time.Duration(r.Config.Shares[s]*float64(abs))))
		}
	}
	if bad > 0 {
		cell = fmt.Sprintf("✗ %d/%d baselines flagged (≥ 95%% recall: %s)", bad, n, cell)
	}
	return cell
}

// WriteSensitivity prints the sweep: the sensitivity table (pooled over
// profiles, then per profile), recall per share, and the baselines each
// method flags.
func (r *SensResult) WriteSensitivity(w io.Writer) {
	all := func(*SensCase) bool { return true }
	cfg := r.Config
	t := table{head: []string{"K"}}
	for _, name := range MethodNames {
		t.head = append(t.head, name)
	}
	for k, runs := range cfg.Runs {
		row := []string{fmt.Sprint(runs)}
		for m := range numMethods {
			row = append(row, r.verdict(m, k, all, 0))
		}
		t.add(row...)
	}
	fmt.Fprintf(w, "Smallest injected self time, as a share of the profile's busy time, found in ≥ %.0f%% of cases (all profiles pooled) with no baseline flagged:\n\n", 100*MinRecall)
	t.write(w)

	fmt.Fprintf(w, "\nPer profile (the share in ms of that profile's busy time):\n\n")
	pt := table{head: []string{"Profile", "Busy", "K"}}
	for _, name := range MethodNames {
		pt.head = append(pt.head, name)
	}
	for _, p := range cfg.Profiles {
		keep := func(c *SensCase) bool { return c.Profile == p }
		var busy time.Duration
		for _, c := range r.Cases {
			if c.Profile == p && busy == 0 {
				busy = c.Busy
			}
		}
		for k, runs := range cfg.Runs {
			row := []string{profileName(p), busy.Round(time.Millisecond).String(), fmt.Sprint(runs)}
			for m := range numMethods {
				row = append(row, r.verdict(m, k, keep, busy))
			}
			pt.add(row...)
		}
	}
	pt.write(w)

	fmt.Fprintf(w, "\nRecall (%%) per injected share, all profiles pooled:\n\n")
	rt := table{head: []string{"Share"}}
	for _, name := range MethodNames {
		for _, runs := range cfg.Runs {
			rt.head = append(rt.head, fmt.Sprintf("%s K=%d", name, runs))
		}
	}
	for s, share := range cfg.Shares {
		row := []string{sharePct(share)}
		for m := range numMethods {
			for k := range cfg.Runs {
				rec, n := r.sensRecall(m, k, s, all)
				if n == 0 {
					row = append(row, "–")
					continue
				}
				row = append(row, fmt.Sprintf("%.0f", 100*rec))
			}
		}
		rt.add(row...)
	}
	rt.write(w)

	fmt.Fprintf(w, "\nBaselines (noise-only pairs) flagged:\n\n")
	bt := table{head: []string{"K"}}
	for _, name := range MethodNames {
		bt.head = append(bt.head, name)
	}
	for k, runs := range cfg.Runs {
		row := []string{fmt.Sprint(runs)}
		for m := range numMethods {
			bad, n := r.flagged(m, k, all)
			row = append(row, fmt.Sprintf("%d/%d", bad, n))
		}
		bt.add(row...)
	}
	bt.write(w)
	for _, c := range r.Cases {
		if c.Skipped != "" {
			fmt.Fprintf(w, "\nskipped: %s case %d: %s", profileName(c.Profile), c.Index+1, c.Skipped)
		}
	}
}

// roundDuration keeps three significant digits.
func roundDuration(d time.Duration) time.Duration {
	for unit := time.Duration(1); ; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
}
