package convert_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"
)

func sum(p *profile.Profile, i int) int64 {
	var s int64
	for _, x := range p.Sample {
		s += x.Value[i]
	}
	return s
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func atoi(s string) int64 {
	v, _ := strconv.ParseInt(s, 10, 64)
	return v
}

func mustRegexp(t *testing.T, s string) *regexp.Regexp {
	t.Helper()
	return regexp.MustCompile(s)
}
