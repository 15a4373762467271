package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/diff"
)

// goPath is a deep Go call path whose frames share one long import path,
// as every frame of a Go service does.
const goPath = "main;github.com/acme/payments/internal/service.Run;github.com/acme/payments/internal/service.handle;" +
	"github.com/acme/payments/internal/rules.Validate;github.com/acme/payments/internal/rules.check;" +
	"github.com/acme/payments/internal/rules.(*Set).match;github.com/acme/payments/internal/rules.compile"

// The text report names frames as pprof's graphs do, short by default and
// in full when asked; lists the ranked paths below the min delta only when
// asked; says "1 frame"; and keeps its lines within 100 columns.
func TestDiffTextReadable(t *testing.T) {
	deep := "main;s1;s2;s3;s4;s5;s6;s7;s8;s9;s10;s11;s12"
	goRes := compare(t, goPath+" 100\nmain;idle 100|"+goPath+" 104\nmain;idle 101",
		goPath+" 300\nmain;idle 120|"+goPath+" 310\nmain;idle 118", diff.Options{})
	for _, tt := range []struct {
		name    string
		res     *diff.Result
		opts    diffTextOptions
		want    []string
		notWant []string
	}{
		{
			name: "short names",
			res:  goRes,
			want: []string{
				"     [(all threads)] main → service.Run → service.handle\n" +
					"     → rules.Validate → rules.check → rules.(*Set).match → rules.compile\n",
				"(hottest rules.compile +203ms)",
			},
			notWant: []string{"github.com/acme"},
		},
		{
			name: "full names",
			res:  goRes,
			opts: diffTextOptions{FullNames: true},
			want: []string{
				"→ github.com/acme/payments/internal/rules.(*Set).match\n",
				"(hottest github.com/acme/payments/internal/rules.compile +203ms)",
			},
		},
		{
			// Of the five ranked paths, four cost less than 50ms.
			name:    "paths below the min delta hidden",
			res:     compare(t, diffCases[0].base, diffCases[0].new, diff.Options{}),
			want:    []string{"* marks the costliest node): 5, 4 below 50ms not shown\n  1. +122.7ms"},
			notWant: []string{"  2. +20.33ms", "*hover", "*sweep"},
		},
		{
			name: "all paths",
			res:  compare(t, diffCases[0].base, diffCases[0].new, diff.Options{}),
			opts: diffTextOptions{AllPaths: true},
			want: []string{"* marks the costliest node): 5\n", "  2. +20.33ms  (hottest validate +20.33ms)\n     [main] main → *validate\n",
				"  5. +333.3µs"},
			notWant: []string{"not shown"},
		},
		{
			name:    "one frame elided",
			res:     compare(t, deep+" 100|"+deep+" 101", deep+" 300|"+deep+" 302", diff.Options{}),
			want:    []string{"main → s1 → s2 → s3 → … 1 frame … → s5 → s6"},
			notWant: []string{"1 frames"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeDiffText(&b, tt.res, tt.opts); err != nil {
				t.Fatal(err)
			}
			text := b.String()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("holds %q", w)
				}
			}
			for _, line := range strings.Split(text, "\n") {
				if n := utf8.RuneCountInString(line); n > 100 {
					t.Errorf("line of %d characters: %s", n, line)
				}
			}
			if t.Failed() {
				t.Logf("report:\n%s", text)
			}
		})
	}
}
