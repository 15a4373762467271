package convert

import (
	"bytes"
	"regexp"
	"strconv"

	"github.com/google/pprof/profile"
)

// collapsed reads folded stacks, one "root;...;leaf VALUE" per line, as
// written by FlameGraph's stackcollapse scripts, async-profiler (collapsed
// output, optionally with --threads and frame-kind annotations) and
// jfr-parser (VALUE in brackets). The input is aggregated: no timestamps.
func init() {
	Register(Format{
		Name:        "collapsed",
		Description: "folded stacks \"a;b;c 12\" (FlameGraph, async-profiler, jfr-parser)",
		Priority:    0,
		Sniff:       sniffCollapsed,
		Parse:       parseCollapsed,
	})
}

// collapsedLine is "stack value" where value is an integer or "[integer]".
var collapsedLine = regexp.MustCompile(`^\S.*\s(\d+|\[\d+\])$`)

// collapsedComments start lines that folded-stack tools skip (speedscope,
// FlameGraph annotations).
var collapsedComments = []string{"#", "//"}

// sniffCollapsed accepts text whose first line is a folded stack or,
// because a stray line must not make the file an unknown format, whose
// lines in the sniff window are mostly folded stacks.
func sniffCollapsed(head []byte) bool {
	if sniffLegacyPprof(head) { // "threadcreate profile: total 7" ends in a count too
		return false
	}
	line, complete := firstLine(head, collapsedComments...)
	if len(line) == 0 || line[0] == '{' || bytes.HasPrefix(line, []byte("[{")) || line[0] == '<' {
		return false
	}
	if !complete { // a very deep first stack: longer than the sniff window
		return bytes.Count(line, []byte{';'}) > 16 && !bytes.ContainsAny(line, "\t{}\"")
	}
	if collapsedLine.Match(line) {
		return true
	}
	valid, invalid := 0, 0
	for rest := head; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 { // the last line may be cut by the window
			break
		}
		l := bytes.TrimSpace(rest[:i])
		rest = rest[i+1:]
		switch {
		case len(l) == 0 || hasAnyPrefix(l, collapsedComments):
		case collapsedLine.Match(l):
			valid++
		default:
			invalid++
		}
	}
	return valid >= 2 && valid > invalid
}

// threadFrame is the root frame async-profiler's --threads option adds.
var threadFrame = regexp.MustCompile(`^\[(.*) tid=(\d+)\]$`)

func parseCollapsed(in *Input) (*profile.Profile, error) {
	b := NewBuilder(&profile.ValueType{Type: "samples", Unit: "count"})
	b.Profile().PeriodType = &profile.ValueType{Type: "samples", Unit: "count"}
	b.Profile().Period = 1
	lr := NewLineReader(in.R)
	var stack []*profile.Location
	skipped := 0
	var firstErr error
	for lr.Scan() {
		line := bytes.TrimSpace(lr.Bytes())
		if len(line) == 0 || hasAnyPrefix(line, collapsedComments) {
			continue
		}
		n, frames, err := collapsedSplit(line, lr.Line())
		if err == nil {
			var meta SampleMeta
			if stack, meta, err = collapsedStack(b, frames, stack[:0], lr.Line()); err == nil {
				leafFirst := make([]*profile.Location, len(stack))
				for i, l := range stack {
					leafFirst[len(stack)-1-i] = l
				}
				b.Add(leafFirst, []int64{n}, meta)
				continue
			}
		}
		if !in.Options.SkipInvalidLines {
			return nil, err
		}
		if skipped++; skipped == 1 {
			firstErr = err
		}
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	switch {
	case skipped == 1:
		in.Warnf("skipped 1 invalid line (%v)", firstErr)
	case skipped > 1:
		in.Warnf("skipped %d invalid lines (the first at %v)", skipped, firstErr)
	}
	return b.Profile(), nil
}

// collapsedSplit splits a line into its count and its frames.
func collapsedSplit(line []byte, lineNo int) (int64, []byte, error) {
	sp := bytes.LastIndexAny(line, " \t")
	if sp < 0 {
		return 0, nil, LineError(lineNo, "expected \"frame;frame;... COUNT\", found no count in %q", textExcerpt(line))
	}
	val, frames := line[sp+1:], bytes.TrimSpace(line[:sp])
	val = bytes.TrimSuffix(bytes.TrimPrefix(val, []byte("[")), []byte("]"))
	n, err := strconv.ParseInt(string(val), 10, 64)
	if err != nil || n < 0 {
		return 0, nil, LineError(lineNo, "expected a non-negative integer count at the end, found %q", textExcerpt(line[sp+1:]))
	}
	if len(frames) == 0 {
		return 0, nil, LineError(lineNo, "expected a stack before the count %d", n)
	}
	return n, frames, nil
}

// collapsedStack appends the locations of the frames, root first, to
// stack; a leading async-profiler thread frame becomes the sample's thread.
func collapsedStack(b *Builder, frames []byte, stack []*profile.Location, lineNo int) ([]*profile.Location, SampleMeta, error) {
	var meta SampleMeta
	for i, f := range bytes.Split(frames, []byte{';'}) {
		if i == 0 {
			if m := threadFrame.FindSubmatch(f); m != nil {
				meta.Thread = string(m[1])
				meta.TID, _ = strconv.ParseInt(string(m[2]), 10, 64)
				meta.HasTID = true
				continue
			}
		}
		stack = append(stack, b.Location(collapsedFrame(f)))
	}
	if len(stack) == 0 {
		return stack, meta, LineError(lineNo, "expected at least one frame after the thread frame")
	}
	return stack, meta, nil
}

// frameKinds are async-profiler's frame-type annotations (src/frameName.cpp):
// interpreted, JIT-compiled, inlined, C1-compiled, kernel.
var frameKinds = []string{"_[0]", "_[j]", "_[i]", "_[1]", "_[k]"}

// collapsedFrame splits a folded frame into name and line. A frame-kind
// suffix is kept in SystemName only, so matching does not depend on the JIT
// tier; a ":LINE" suffix (async-profiler --lines, jfr-parser) becomes Line.
func collapsedFrame(f []byte) Frame {
	var line int64
	if i := bytes.LastIndexByte(f, ':'); i > 0 && i < len(f)-1 && f[i-1] != ':' {
		if n, err := strconv.ParseInt(string(f[i+1:]), 10, 64); err == nil && n >= 0 {
			line, f = n, f[:i]
		}
	}
	fr := Frame{Name: string(f), Line: line}
	for _, k := range frameKinds {
		if bytes.HasSuffix(f, []byte(k)) {
			fr.SystemName, fr.Name = fr.Name, string(f[:len(f)-len(k)])
			break
		}
	}
	return fr
}
