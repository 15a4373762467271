package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ctdiff/ctdiff/diff"
)

// FormatValue renders a sample value in its unit the way pprof users read
// them: durations scaled to s/ms/µs/ns, bytes to B/kB/MB/GB, other units as
// plain integers; diff.UnitShare (normalized shares) as percentages.
func FormatValue(v int64, unit string) string {
	switch unit {
	case "nanoseconds":
		return formatDuration(float64(v))
	case "microseconds":
		return formatDuration(float64(v) * 1e3)
	case "milliseconds":
		return formatDuration(float64(v) * 1e6)
	case "seconds":
		return formatDuration(float64(v) * 1e9)
	case "bytes":
		return formatBytes(float64(v))
	case diff.UnitShare:
		return trim(float64(v)/1e7) + "%"
	}
	return strconv.FormatInt(v, 10)
}

func formatDuration(ns float64) string {
	a := math.Abs(ns)
	switch {
	case a == 0:
		return "0"
	case a >= 1e9:
		return trim(ns/1e9) + "s"
	case a >= 1e6:
		return trim(ns/1e6) + "ms"
	case a >= 1e3:
		return trim(ns/1e3) + "µs"
	}
	return trim(ns) + "ns"
}

func formatBytes(b float64) string {
	a := math.Abs(b)
	switch {
	case a >= 1<<30:
		return trim(b/(1<<30)) + "GB"
	case a >= 1<<20:
		return trim(b/(1<<20)) + "MB"
	case a >= 1<<10:
		return trim(b/(1<<10)) + "kB"
	}
	return trim(b) + "B"
}

// trim prints up to three significant decimals, without trailing zeros.
func trim(f float64) string {
	s := strconv.FormatFloat(f, 'f', 2, 64)
	if math.Abs(f) >= 100 {
		s = strconv.FormatFloat(f, 'f', 1, 64)
	}
	for len(s) > 1 && s[len(s)-1] == '0' && containsDot(s) {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}

func containsDot(s string) bool {
	for i := range len(s) {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

// percent renders part/whole as "12.34%", or "-" when whole is zero.
func percent(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(part)/float64(whole))
}
