package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"unsafe"

	"github.com/google/pprof/profile"
)

// collapsed reads folded stacks, one "root;...;leaf VALUE" per line, as
// written by FlameGraph's stackcollapse scripts, async-profiler (collapsed
// output, optionally with --threads and frame-kind annotations) and
// jfr-parser (VALUE in brackets). The input is aggregated: no timestamps.
func init() {
	register(inputFormat{
		Name:        "collapsed",
		Description: "folded stacks \"a;b;c 12\" (FlameGraph, async-profiler, jfr-parser)",
		Priority:    0,
		Sniff:       sniffCollapsed,
		Parse:       parseCollapsed,
		ParseStacks: parseCollapsedStacks,
		// Its samples have no labels but the thread's and its tid.
		CompleteStacks: true,
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
	if !bytes.Contains(head, []byte{'\n'}) && bytes.Contains(head, []byte{'\r'}) {
		head = bytes.ReplaceAll(head, []byte{'\r'}, []byte{'\n'}) // classic Mac OS line ends
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

// parseCollapsed merges identical stacks (of one thread) as it streams, so
// memory grows with the distinct stacks, not with the lines: a file that
// repeats a line holds one sample. Samples keep the order of first
// appearance, which is all the order folded stacks have.
//
// Its locations are found by the frames' text as it stands in the line
// (no copy is made of a frame met before), so a stack of a million
// distinct frames costs the frames (with useFrames, about 100 bytes each
// with their names) and its four bytes a frame.
func parseCollapsed(in *parserInput) (*profile.Profile, error) {
	r := &collapsedReader{
		b:      newProfileBuilder(&profile.ValueType{Type: "samples", Unit: "count"}),
		merged: map[string]int32{},
	}
	in.collectFrames(r.b)
	p := r.b.Profile()
	p.PeriodType = &profile.ValueType{Type: "samples", Unit: "count"}
	p.Period = 1
	lr := newLineReader(in.R)
	skipped := 0
	var firstErr error
	crLines := 0 // lines ended by a lone CR (classic Mac OS line ends), not by the line reader
	for lr.Scan() {
		for i, part := 0, lr.Bytes(); part != nil; i++ {
			var line []byte
			line, part, _ = bytes.Cut(part, []byte{'\r'})
			if i > 0 {
				crLines++
			}
			if line = bytes.TrimSpace(line); len(line) == 0 || hasAnyPrefix(line, collapsedComments) {
				continue
			}
			err := r.line(line, lr.Line()+crLines)
			if err == nil {
				continue
			}
			switch {
			case errors.Is(err, errStackLimit):
				return nil, err
			case !in.Options.SkipInvalidLines:
				return nil, &invalidLineError{err}
			}
			if skipped++; skipped == 1 {
				firstErr = err
			}
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
	return p, nil
}

// parseCollapsedStacks is parseCollapsed as ParseStacks.
var parseCollapsedStacks = parseCollecting(parseCollapsed)

type collapsedReader struct {
	b       *profileBuilder
	merged  map[string]int32 // sample by thread and stack (collapsedReader.key)
	samples int32
	stack   []int32 // the current line's locations, root first
	leaf    []int32 // and leaf first
	key     []byte
}

// line adds one folded line, or says why it cannot.
func (r *collapsedReader) line(line []byte, lineNo int) error {
	n, frames, err := collapsedSplit(line, lineNo)
	if err != nil {
		return err
	}
	// A deep stack is refused before its frames are built (a 256 MB line
	// could name 128 million), as checkSamples would refuse the sample.
	depth := bytes.Count(frames, []byte{';'}) + 1
	if i := bytes.IndexByte(frames, ';'); i >= 0 && threadFrame.Match(frames[:i]) {
		depth--
	}
	if depth > MaxStackDepth {
		err := (&stackBudget{limit: math.MaxInt64}).take(depth)
		return fmt.Errorf("sample %d: %w", r.samples, err)
	}
	var meta sampleMeta
	if r.stack, meta, err = r.frames(frames, r.stack[:0], lineNo); err != nil {
		return err
	}
	r.key = append(r.key[:0], meta.Thread...)
	r.key = append(r.key, 0)
	r.key = binary.AppendVarint(r.key, meta.TID)
	for _, x := range r.stack {
		r.key = binary.AppendUvarint(r.key, uint64(x))
	}
	if x, ok := r.merged[string(r.key)]; ok {
		v := r.b.sampleValues(int(x))
		if v[0] > math.MaxInt64-n {
			return errAtLine(lineNo, "the counts of this stack add up to more than %d", int64(math.MaxInt64))
		}
		v[0] += n
		return nil
	}
	r.leaf = slices.Grow(r.leaf[:0], len(r.stack))[:len(r.stack)]
	for i, x := range r.stack {
		r.leaf[len(r.stack)-1-i] = x
	}
	r.b.addIdx(r.leaf, []int64{n}, meta)
	r.merged[string(r.key)] = r.samples
	r.samples++
	return nil
}

// collapsedSplit splits a line into its count and its frames.
func collapsedSplit(line []byte, lineNo int) (int64, []byte, error) {
	sp := bytes.LastIndexAny(line, " \t")
	if sp < 0 {
		return 0, nil, errAtLine(lineNo, "expected \"frame;frame;... COUNT\", found no count in %q", textExcerpt(line))
	}
	val, frames := line[sp+1:], bytes.TrimSpace(line[:sp])
	val = bytes.TrimSuffix(bytes.TrimPrefix(val, []byte("[")), []byte("]"))
	n, err := strconv.ParseInt(string(val), 10, 64)
	if err != nil || n < 0 {
		return 0, nil, errAtLine(lineNo, "expected a non-negative integer count at the end, found %q", textExcerpt(line[sp+1:]))
	}
	if len(frames) == 0 {
		return 0, nil, errAtLine(lineNo, "expected a stack before the count %d", n)
	}
	return n, frames, nil
}

// frames appends the locations of the frames, root first, to stack; a
// leading async-profiler thread frame becomes the sample's thread. It
// walks the frames in place.
func (r *collapsedReader) frames(frames []byte, stack []int32, lineNo int) ([]int32, sampleMeta, error) {
	var meta sampleMeta
	for i := 0; ; i++ {
		f := frames // the frames split at ';', as bytes.Split would, without its slice
		j := bytes.IndexByte(frames, ';')
		if j >= 0 {
			f = frames[:j]
		}
		switch {
		case i == 0 && threadFrame.Match(f):
			m := threadFrame.FindSubmatch(f)
			meta.Thread = string(m[1])
			meta.TID, _ = strconv.ParseInt(string(m[2]), 10, 64)
			meta.HasTID = true
		default:
			stack = append(stack, r.location(f))
		}
		if j < 0 {
			break
		}
		frames = frames[j+1:]
	}
	if len(stack) == 0 {
		return stack, meta, errAtLine(lineNo, "expected at least one frame after the thread frame")
	}
	return stack, meta, nil
}

// location returns the location of a frame's text, which is looked up as
// it stands in the line and copied only when new.
func (r *collapsedReader) location(f []byte) int32 {
	fr := collapsedFrame(f, viewString)
	if x, ok := r.b.findLoc(fr); ok {
		return x
	}
	return r.b.loc(collapsedFrame(f, func(b []byte) string { return string(b) }))
}

// frameKinds are async-profiler's frame-type annotations (src/frameName.cpp):
// interpreted, JIT-compiled, inlined, C1-compiled, kernel.
var frameKinds = []string{"_[0]", "_[j]", "_[i]", "_[1]", "_[k]"}

// collapsedFrame splits a folded frame into name and line. A frame-kind
// suffix is kept in SystemName only, so matching does not depend on the JIT
// tier; a ":LINE" suffix (async-profiler --lines, jfr-parser) becomes Line.
// str makes the names' strings of the frame's bytes.
func collapsedFrame(f []byte, str func([]byte) string) stackFrame {
	var line int64
	if i := bytes.LastIndexByte(f, ':'); i > 0 && i < len(f)-1 && f[i-1] != ':' {
		if n, err := strconv.ParseInt(viewString(f[i+1:]), 10, 64); err == nil && n >= 0 {
			line, f = n, f[:i]
		}
	}
	fr := stackFrame{Name: str(f), Line: line}
	for _, k := range frameKinds {
		if bytes.HasSuffix(f, []byte(k)) {
			fr.SystemName, fr.Name = fr.Name, fr.Name[:len(f)-len(k)]
			break
		}
	}
	return fr
}

// viewString returns b's bytes as a string without copying them: for
// looking a name up, never for keeping it (b changes as the input is read).
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
