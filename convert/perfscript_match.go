package convert

import "strings"

// Hand-written matchers for the perf script lines read on every sample
// (the header regexp and the srcline regexp tried on every frame line took
// a fifth of the reader's CPU). Each does exactly what the
// regexp in its comment did; perfscript_match_test.go checks that against
// the regexp itself.

// isPerlSpace is regexp's \s: [\t\n\f\r ].
func isPerlSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitsEnd returns the end of the run of digits at s[i:].
func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

// spaceEnd returns the end of the run of \s at s[i:].
func spaceEnd(s string, i int) int {
	for i < len(s) && isPerlSpace(s[i]) {
		i++
	}
	return i
}

// perfHeaderFields are the parts of a sample header; an empty string is an
// absent part.
type perfHeaderFields struct {
	comm, pid, tid, cpu, secs, frac, period, event, trailer string
}

// matchPerfHeader matches a sample header line as
//
//	^(\S.*?)\s+(?:(\d+)/)?(\d+)\s+(?:\[(\d+)\]\s+)?(?:(\d+)\.(\d+):\s+)?(?:(\d+)\s+)?([A-Za-z_]\S*?):(?:\s+(.*))?$
//
// did: the command name is the shortest prefix that lets the rest match.
// After it every optional part is decided by its first byte (each one's
// alternative would start with a byte that cannot follow), so only the
// command name's end is searched for; the event is the shortest run of
// non-space bytes from a letter to a ':' that ends the line or is
// followed by white space (tracepoint events hold ':'s).
func matchPerfHeader(s string) (perfHeaderFields, bool) {
	if len(s) == 0 || isPerlSpace(s[0]) {
		return perfHeaderFields{}, false
	}
	for e := 1; e < len(s); e++ {
		if !isPerlSpace(s[e]) {
			continue
		}
		if f, ok := matchPerfHeaderRest(s, e); ok {
			return f, true
		}
		if s[e] == '\n' {
			break // '.' matches no '\n': the name cannot hold it
		}
	}
	return perfHeaderFields{}, false
}

// matchPerfHeaderRest matches the header after a command name s[:e],
// s[e] being white space.
func matchPerfHeaderRest(s string, e int) (perfHeaderFields, bool) {
	f := perfHeaderFields{comm: s[:e]}
	i, ok := f.ids(s, spaceEnd(s, e))
	if ok {
		i, ok = f.cpuTime(s, i)
	}
	if !ok {
		return f, false
	}
	if j := digitsEnd(s, i); j > i {
		if !spaceAt(s, j) {
			return f, false
		}
		f.period = s[i:j]
		i = spaceEnd(s, j)
	}
	ok = f.eventAt(s, i)
	return f, ok
}

// spaceAt reports whether s[j] is white space.
func spaceAt(s string, j int) bool { return j < len(s) && isPerlSpace(s[j]) }

// ids matches "pid/tid" or "tid" and the white space after it at s[i:],
// returning where that white space ends.
func (f *perfHeaderFields) ids(s string, i int) (int, bool) {
	j := digitsEnd(s, i)
	if j == i {
		return i, false
	}
	if j < len(s) && s[j] == '/' {
		f.pid = s[i:j]
		i = j + 1
		if j = digitsEnd(s, i); j == i {
			return i, false
		}
	}
	f.tid = s[i:j]
	if !spaceAt(s, j) {
		return i, false
	}
	return spaceEnd(s, j), true
}

// cpuTime matches the optional "[cpu]" and "secs.frac:", each followed by
// white space, at s[i:], returning where they end.
func (f *perfHeaderFields) cpuTime(s string, i int) (int, bool) {
	if i < len(s) && s[i] == '[' {
		j := digitsEnd(s, i+1)
		if j == i+1 || j == len(s) || s[j] != ']' || !spaceAt(s, j+1) {
			return i, false
		}
		f.cpu = s[i+1 : j]
		i = spaceEnd(s, j+1)
	}
	if j := digitsEnd(s, i); j > i && j < len(s) && s[j] == '.' {
		k := digitsEnd(s, j+1)
		if k == j+1 || k == len(s) || s[k] != ':' || !spaceAt(s, k+1) {
			return i, false
		}
		f.secs, f.frac = s[i:j], s[j+1:k]
		i = spaceEnd(s, k+1)
	}
	return i, true
}

// eventAt matches the event name ending in ':' at s[i:] and the trailer
// after it, which must not hold a '\n'.
func (f *perfHeaderFields) eventAt(s string, i int) bool {
	if i == len(s) || !(s[i] == '_' || 'a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z') {
		return false
	}
	for k := i + 1; k < len(s) && !isPerlSpace(s[k]); k++ {
		if s[k] != ':' {
			continue
		}
		if k+1 == len(s) {
			f.event = s[i:k]
			return true
		}
		if isPerlSpace(s[k+1]) {
			f.event, f.trailer = s[i:k], s[spaceEnd(s, k+1):]
			return strings.IndexByte(f.trailer, '\n') < 0
		}
	}
	return false
}

// isPerfSrcLine reports whether a frame line is the source line perf
// script -F +srcline prints under a frame ("file.c:12"), as ^\S+:\d+$ did.
func isPerfSrcLine(t []byte) bool {
	p := -1
	for i, c := range t {
		if isPerlSpace(c) {
			return false
		}
		if c == ':' {
			p = i
		}
	}
	if p < 1 || p == len(t)-1 {
		return false
	}
	for _, c := range t[p+1:] {
		if !isDigit(c) {
			return false
		}
	}
	return true
}
