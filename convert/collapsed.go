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

func sniffCollapsed(head []byte) bool {
	line, complete := firstLine(head, "#")
	if len(line) == 0 || line[0] == '{' || bytes.HasPrefix(line, []byte("[{")) || line[0] == '<' {
		return false
	}
	if !complete { // a very deep first stack: longer than the sniff window
		return bytes.Count(line, []byte{';'}) > 16 && !bytes.ContainsAny(line, "\t{}\"")
	}
	return collapsedLine.Match(line)
}

// threadFrame is the root frame async-profiler's --threads option adds.
var threadFrame = regexp.MustCompile(`^\[(.*) tid=(\d+)\]$`)

func parseCollapsed(in *Input) (*profile.Profile, error) {
	b := NewBuilder(&profile.ValueType{Type: "samples", Unit: "count"})
	b.Profile().PeriodType = &profile.ValueType{Type: "samples", Unit: "count"}
	b.Profile().Period = 1
	lr := NewLineReader(in.R)
	var stack []*profile.Location
	for lr.Scan() {
		line := bytes.TrimSpace(lr.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		sp := bytes.LastIndexAny(line, " \t")
		if sp < 0 {
			return nil, LineError(lr.Line(), "expected \"frame;frame;... COUNT\", found no count")
		}
		val, frames := line[sp+1:], bytes.TrimSpace(line[:sp])
		val = bytes.TrimSuffix(bytes.TrimPrefix(val, []byte("[")), []byte("]"))
		n, err := strconv.ParseInt(string(val), 10, 64)
		if err != nil || n < 0 {
			return nil, LineError(lr.Line(), "expected a non-negative integer count at the end, found %q", textExcerpt(line[sp+1:]))
		}
		if len(frames) == 0 {
			return nil, LineError(lr.Line(), "expected a stack before the count %d", n)
		}
		var meta SampleMeta
		stack = stack[:0]
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
			return nil, LineError(lr.Line(), "expected at least one frame after the thread frame")
		}
		leafFirst := make([]*profile.Location, len(stack))
		for i, l := range stack {
			leafFirst[len(stack)-1-i] = l
		}
		b.Add(leafFirst, []int64{n}, meta)
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	return b.Profile(), nil
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
