package convert

import (
	"bufio"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/tools/hostile"
)

// A line longer than the limit is refused once the buffer reaches the
// limit, with the line's number, and what reading it allocates stays
// within about twice the limit (a buffer doubling to it), however long
// the line: growing by a quarter near the limit allocated five times it.
func TestLineLimitBuffer(t *testing.T) {
	const limit = 4 << 20
	for _, size := range []int64{limit + 1, 16 * limit} {
		pr, pw := io.Pipe()
		go func() {
			pw.CloseWithError(hostile.PerfScriptLongLine(pw, size))
		}()
		lr := newLineReader(bufio.NewReaderSize(pr, 64<<10))
		lr.limit = limit
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		lines := 0
		for lr.Scan() {
			lines++
		}
		runtime.ReadMemStats(&after)
		pr.Close()
		if err := lr.Err(); err == nil || !strings.Contains(err.Error(), "line 2: longer than 4194304 bytes") {
			t.Errorf("a line of %d bytes: error %v, want line 2: longer than 4194304 bytes", size, err)
		}
		if lines != 1 {
			t.Errorf("a line of %d bytes: %d lines before it, want 1", size, lines)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 5*limit/2 {
			t.Errorf("a line of %d bytes: reading it allocated %.1f MB, more than 2.5 times the %d MB limit", size, mb(got), limit>>20)
		}
	}
}

// A perf frame name over maxNameBytes is cut to it, keeping the frame's
// module, with a warning.
func TestPerfScriptLongNameCut(t *testing.T) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(hostile.PerfScriptLongName(pw, 3*maxNameBytes)) }()
	res, err := Read(pr, "long.perf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "1 frame lines are longer than 1048576 bytes: their names were cut to that length") {
		t.Errorf("warnings %q, want one of a frame line cut", res.Warnings)
	}
	longest := 0
	for _, fn := range res.Profile.Function {
		longest = max(longest, len(fn.Name))
		if len(fn.Name) > 1000 && fn.Filename != "/app" {
			t.Errorf("the cut frame's file is %q, want /app", fn.Filename)
		}
	}
	if longest > maxNameBytes {
		t.Errorf("a name of %d bytes kept, more than %d", longest, maxNameBytes)
	}
}
