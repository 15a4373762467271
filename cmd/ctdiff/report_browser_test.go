package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/browser"
)

// The worked example's HTML report opens in headless Chromium: its script
// runs without errors, every component has its section with its verdict,
// and the ranking links to them.
func TestReportHTMLInBrowser(t *testing.T) {
	browser.Find(t)
	out, stderr, code := ctdiff("report", releaseManifest, "--format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "release.html")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := browser.DumpDOM(t, path)
	if !strings.Contains(dom, `data-ctdiff-rendered="4"`) {
		t.Errorf("the page's script did not run over the 4 components:\n%s", dom[:min(len(dom), 1500)])
	}
	if strings.Contains(dom, `data-ctdiff-errors="1"`) {
		t.Errorf("script errors: %s", regexp.MustCompile(`(?s)<pre id="ctdiff-errors"[^>]*>.*?</pre>`).FindString(dom))
	}
	sections := regexp.MustCompile(`<section class="component" id="(component-\d)" data-verdict="(\w+)">\s*<h2>\d\. (\w+): (\w+)`).FindAllStringSubmatch(dom, -1)
	got := map[string]string{}
	for _, s := range sections {
		if s[2] != s[4] || !strings.Contains(dom, `data-component="`+s[1]+`"`) {
			t.Errorf("section %s of %s: verdict %s, heading %s, or no ranking row links to it", s[1], s[3], s[2], s[4])
		}
		got[s[3]] = s[2]
	}
	want := map[string]string{"web": "regressed", "billing": "regressed", "api": "regressed", "search": "improved"}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("component %s: %q in the browser's DOM, want %s (sections %v)", name, got[name], v, got)
		}
	}
}
