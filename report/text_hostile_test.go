package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

// terminalAttacks are names that act on a terminal or forge report lines:
// an OSC title change, a screen clear, the 8-bit CSI and a newline that
// starts a line of its own.
var terminalAttacks = []string{
	"osc\x1b]0;pwned\x07title",
	"csi\x1b[2J\x1b[Hclear",
	"c1\u009b2Jcsi",
	"line\nFORGED  1. +1h regressed",
}

// checkTerminalSafe fails when text output holds a control character other
// than the newlines that end its lines, or a line a name started.
func checkTerminalSafe(t *testing.T, what string, out []byte) {
	t.Helper()
	for i, r := range string(out) {
		if unicode.IsControl(r) && r != '\n' {
			t.Errorf("%s: control character %U at byte %d: %q", what, r, i, out[max(0, i-30):min(len(out), i+30)])
			return
		}
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " │├└─"), "FORGED") {
			t.Errorf("%s: a name started a line: %q", what, line)
		}
	}
	if len(out) == 0 {
		t.Errorf("%s: no output", what)
	}
}

// hostileTextTree is hostileTree with the terminal attacks as the sample
// type, since a profile names its sample types too.
func hostileTextTree(t *testing.T, weight int64) *cct.Tree {
	tr := hostileTree(t, weight)
	tr.SampleTypes[0].Type = terminalAttacks[0]
	return tr
}

// Every text and Markdown report writes the names of functions, files,
// threads, processes, sample types, inputs and components escaped.
func TestTextReportsEscapeControlCharacters(t *testing.T) {
	inputs := append([]string{}, terminalAttacks...)
	tr := hostileTextTree(t, 1000)
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"tree", func(b *bytes.Buffer) error { return writeTreeText(b, tr, TreeOptions{Inputs: inputs}) }},
		{"bottom-up", func(b *bytes.Buffer) error {
			return writeTreeText(b, cct.BottomUp(tr), TreeOptions{Inputs: inputs, View: "bottom-up"})
		}},
		{"flat", func(b *bytes.Buffer) error { return writeFlatText(b, tr, TreeOptions{Inputs: inputs}) }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		checkTerminalSafe(t, tc.name, b.Bytes())
	}

	base := []*cct.Tree{hostileTextTree(t, 100_000_000), hostileTextTree(t, 110_000_000)}
	nw := []*cct.Tree{hostileTextTree(t, 300_000_000), hostileTextTree(t, 310_000_000)}
	res, err := diff.Compare(base, nw, diff.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Causes) == 0 || len(res.RankedPaths) == 0 {
		t.Fatal("no causes or ranked paths: the report would not show the hostile names")
	}
	res.Base.Profiles, res.New.Profiles = inputs, inputs
	res.Warnings = append(res.Warnings, terminalAttacks...)
	res.GoRuntime = &diff.GoRuntime{Allocators: []diff.Allocator{{Frame: diff.Frame{Function: terminalAttacks[1], File: terminalAttacks[3]}}}}
	res.Normalization.Mode, res.Normalization.Per = diff.NormalizePer, "call of "+terminalAttacks[3]
	res.Normalization.Func, res.Normalization.Matched = terminalAttacks[1], terminalAttacks[3]
	res.Normalization.Reason += " " + terminalAttacks[3]
	res.Benchmark = &diff.BenchVerdict{Name: terminalAttacks[2], Function: terminalAttacks[3], Warnings: terminalAttacks}
	var b bytes.Buffer
	if err := writeDiffText(&b, res, diffTextOptions{}); err != nil {
		t.Fatal(err)
	}
	checkTerminalSafe(t, "diff text", b.Bytes())
	b.Reset()
	if err := writeDiffMarkdown(&b, res, diffMarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	checkTerminalSafe(t, "diff markdown", b.Bytes())

	var comps []Component
	for i, a := range terminalAttacks {
		comps = append(comps, Component{Name: a + strings.Repeat("+", i), Result: res, Source: a})
	}
	rel := NewRelease(comps)
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"release text", func(b *bytes.Buffer) error { return writeReleaseText(b, rel, ReleaseOptions{}) }},
		{"release markdown", func(b *bytes.Buffer) error { return writeReleaseMarkdown(b, rel, ReleaseOptions{}) }},
	} {
		b.Reset()
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		checkTerminalSafe(t, tc.name, b.Bytes())
	}
}
