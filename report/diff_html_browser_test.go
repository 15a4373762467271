package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/browser"
)

// The page with a hostile function name runs in a real browser: the script
// draws the icicle graph without errors, the name shows as text in the
// cause's frame, and no element came out of it. Searching through the URL
// fragment finds it.
func TestDiffHTMLInBrowser(t *testing.T) {
	browser.Find(t)
	var b bytes.Buffer
	if err := writeDiffHTML(&b, hostileResult(t), diffHTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browser.DumpDOM(t, path)
	CheckRendered(t, dom)
	if strings.Contains(dom, "<img") || strings.Contains(dom, "<blink") {
		t.Errorf("the hostile name became an element:\n%s", dom)
	}
	name := regexp.QuoteMeta(`#1 &lt;img src=x onerror=alert(1)&gt;"`)
	if !regexp.MustCompile(`<div class="fg-node cause[^"]*"[^>]*>` + name).MatchString(dom) {
		t.Errorf("no icicle frame for the cause shows its name as text:\n%s", fgNodes(dom))
	}

	dom = browser.DumpDOM(t, path+"#search=onerror")
	CheckRendered(t, dom)
	if !strings.Contains(dom, `id="fg-status" class="status">1 matching frame, `) {
		t.Errorf("searching by the URL fragment: status %q", regexp.MustCompile(`id="fg-status"[^<]*`).FindString(dom))
	}
	if n := strings.Count(dom, "fg-node cause match"); n != 1 {
		t.Errorf("%d matching cause frames, want 1", n)
	}
}

// CheckRendered fails when the page's script did not finish drawing or
// reported an error (the page catches them in window.onerror).
func CheckRendered(t *testing.T, dom string) {
	t.Helper()
	if !strings.Contains(dom, `data-ctdiff-rendered="1"`) {
		t.Errorf("the script did not render the icicle graph:\n%s", dom[:min(len(dom), 2000)])
	}
	if strings.Contains(dom, `data-ctdiff-errors="1"`) {
		t.Errorf("script errors: %s", regexp.MustCompile(`(?s)<pre id="ctdiff-errors"[^>]*>.*?</pre>`).FindString(dom))
	}
}

// fgNodes lists the icicle frames of a DOM, for failure messages.
func fgNodes(dom string) string {
	return strings.Join(regexp.MustCompile(`<div class="fg-node[^>]*>[^<]*`).FindAllString(dom, 40), "\n")
}

// The icicle graph's colours, drawn in a real browser: the cause is red,
// at full strength whatever its size; no other frame is; its caller, whose
// own time did not change, is grey, and with the total delta (which holds
// the cause's) orange, never red; a frame that grew by less than μ is
// faint.
func TestDiffHTMLColoursInBrowser(t *testing.T) {
	browser.Find(t)
	res := compareTree(t, diffCases[0].base, diffCases[0].new, diffCases[0].opts)
	var b bytes.Buffer
	if err := writeDiffHTML(&b, res, diffHTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	frame := regexp.MustCompile(`<div class="fg-node([^"]*)"[^>]*background-color: rgb\((\d+), (\d+), (\d+)\)[^>]*>([^<]*)</div>`)
	colours := func(dom string) map[string][3]int {
		out := map[string][3]int{}
		for _, m := range frame.FindAllStringSubmatch(dom, -1) {
			var c [3]int
			for i := range c {
				c[i], _ = strconv.Atoi(m[2+i])
			}
			out[m[5]] = c
		}
		return out
	}
	red := [3]int{215, 48, 39}
	for _, tt := range []struct {
		hash   string
		render func(c [3]int) bool
		what   string
	}{
		{"", func(c [3]int) bool { return c == [3]int{242, 242, 242} }, "grey (its own time did not change)"},
		{"#color=total", func(c [3]int) bool { return c[0] > c[1] && c[1] > c[2] && c != red }, "orange (its total grew by μ or more)"},
	} {
		dom := browser.DumpDOM(t, path+tt.hash)
		CheckRendered(t, dom)
		got := colours(dom)
		if got["#1 layout"] != red {
			t.Errorf("%q: the cause is %v, want %v; frames %v", tt.hash, got["#1 layout"], red, got)
		}
		for name, c := range got {
			if c == red && name != "#1 layout" {
				t.Errorf("%q: %s is painted as a cause", tt.hash, name)
			}
		}
		if c, ok := got["render"]; !ok || !tt.render(c) {
			t.Errorf("%q: the cause's caller render is %v, want %s", tt.hash, c, tt.what)
		}
		// validate was added with 20 ms, below μ = 50 ms: at most a
		// quarter of the way from white, towards orange (whose green
		// falls half as fast as its blue), not red (both alike).
		if c := got["validate"]; c[0] < 240 || c[1] < 220 || c[2] < 200 || float64(255-c[1]) > 0.75*float64(255-c[2]) {
			t.Errorf("%q: validate (+20 ms, below μ) is %v, want a faint orange", tt.hash, c)
		}
	}
}
