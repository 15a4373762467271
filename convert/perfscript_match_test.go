package convert

import (
	"regexp"
	"testing"
)

// The regexps the hand-written matchers replace, kept as their oracle.
var (
	perfHeaderRE  = regexp.MustCompile(`^(\S.*?)\s+(?:(\d+)/)?(\d+)\s+(?:\[(\d+)\]\s+)?(?:(\d+)\.(\d+):\s+)?(?:(\d+)\s+)?([A-Za-z_]\S*?):(?:\s+(.*))?$`)
	perfSrcLineRE = regexp.MustCompile(`^\S+:\d+$`)
)

var perfLineCases = []string{
	"perf   977/977   [000] 7628263.042515:    1001001 cpu-clock:",
	"swapper     0 [003] 1234.5678: cycles:ppp: ",
	"java 12 [1] 5.6: 100 sched:sched_switch: prev_comm=java",
	"Web Content 4242/4243 [7] 1.2: 10 cpu-clock:\tffff sym (dso)",
	"comm 1 2 3 x:",
	"comm 1 2: x:",
	"a 1 b:c d:e:",
	"a 1 b:c",
	"9 8 7 6 5 e: trailing  ",
	"x\ty\f1\rev:\r",
	"a 1/ ev:",
	"a /1 ev:",
	"a 1 [x] ev:",
	"a 1 [1]ev:",
	"a 1 1.2:ev:",
	"a 1 12ev:",
	"a 1 _:",
	"a 1 9ev:",
	" a 1 ev:",
	"a 1 ev:\nb",
	"a 1 ev :",
	"a 1 e v:",
	"a 1 1 1 1 ev:",
	"\xff 1 ev:",
	"file.c:12",
	"f:1",
	":1",
	"a:",
	"a b:1",
	"a:b:12",
	"a:1x",
	"",
}

func TestMatchPerfHeader(t *testing.T) {
	for _, s := range perfLineCases {
		checkPerfHeader(t, s)
		checkPerfSrcLine(t, s)
	}
}

func checkPerfHeader(t *testing.T, s string) {
	t.Helper()
	got, ok := matchPerfHeader(s)
	m := perfHeaderRE.FindStringSubmatch(s)
	if ok != (m != nil) {
		t.Fatalf("matchPerfHeader(%q) ok = %v, the regexp says %v", s, ok, m != nil)
	}
	if !ok {
		return
	}
	want := perfHeaderFields{m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9]}
	if got != want {
		t.Fatalf("matchPerfHeader(%q)\n= %+v\nwant %+v", s, got, want)
	}
}

func checkPerfSrcLine(t *testing.T, s string) {
	t.Helper()
	if got, want := isPerfSrcLine([]byte(s)), perfSrcLineRE.MatchString(s); got != want {
		t.Fatalf("isPerfSrcLine(%q) = %v, the regexp says %v", s, got, want)
	}
}

func FuzzPerfLines(f *testing.F) {
	for _, s := range perfLineCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPerfHeader(t, s)
		checkPerfSrcLine(t, s)
	})
}

var frameLineCases = []string{
	"7f3a10556315 _ZN3app6Buffer8NodeImpl2621Ev+0x5b (/usr/lib/libapp.so.1)",
	"ffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])",
	"0 [unknown]+0x10 (/lib/x.so)",
	"abc [unknown] ([unknown])",
	"abc f+0x1 (inlined)",
	"abc f+0x1 (/tmp/perf-1.map (deleted))",
	"abc f+0xZ (x)",
	"abc\tf (x)",
	"xyz f (x)",
	"abc f(int) (x)",
	"abc f  (x)",
	"abc _$LT$T$GT$::f::h0123456789abcdef+0x2 (x)",
}

// TestSimpleFrameLine: a line simpleFrameLine splits has the frame of any
// other line with its symbol and dso, whatever the address and offset, so
// frameLine may look it up by them.
func TestSimpleFrameLine(t *testing.T) {
	for _, s := range frameLineCases {
		checkSimpleFrameLine(t, s)
	}
	if _, _, ok := simpleFrameLine([]byte(frameLineCases[0])); !ok {
		t.Errorf("the usual frame line %q is not split", frameLineCases[0])
	}
}

func checkSimpleFrameLine(t *testing.T, s string) {
	t.Helper()
	sym, dso, ok := simpleFrameLine([]byte(s))
	if !ok {
		return
	}
	r := &perfReader{}
	canonical := "0 " + string(sym) + "+0x0 (" + string(dso) + ")" // sym is without its offset
	if got, want := r.frame(s), r.frame(canonical); got != want {
		t.Fatalf("frame(%q) = %+v, but frame(%q) = %+v", s, got, canonical, want)
	}
}

func FuzzSimpleFrameLine(f *testing.F) {
	for _, s := range frameLineCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSimpleFrameLine(t, s) })
}
