package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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
