package report

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
)

func TestDotQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`C:\path\l`, `"C:\\path\\l"`},
		{"new\nline\x00\u202e", `"new\\nline\\x00\\u202e"`},
		{`<img src=x onerror=alert(1)>`, `"<img src=x onerror=alert(1)>"`},
	}
	for _, tt := range tests {
		if got := dotQuote(tt.in); got != tt.want {
			t.Errorf("dotQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// renderDOT runs Graphviz when it is installed (CI installs it), so DOT
// output is checked by the real parser, not by eye.
func renderDOT(t *testing.T, dot []byte) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("graphviz (dot) is not installed; .ci/run installs it")
		}
		t.Skip("graphviz not installed")
	}
	cmd := exec.Command(bin, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dot)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("dot -Tsvg: %v %s\n%s", err, stderr.String(), dot)
	}
}

func TestTreeDOTRendersHostileNames(t *testing.T) {
	tr := cctest.Tree(t, cct.Options{},
		`main;say"hi";C:\dir\l 5`,
		"main;<img_src=x_onerror=alert(1)>;{}|[] 3",
		"main;tiny 0",
	)
	var b bytes.Buffer
	if err := writeTreeDOT(&b, tr, TreeOptions{NodeFraction: 0.01}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`say\"hi\"`, `C:\\dir\\l`, `n0 -> n1`} {
		if !strings.Contains(out, want) {
			t.Errorf("DOT lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tiny") {
		t.Errorf("a zero-valued node below the node fraction is drawn:\n%s", out)
	}
	renderDOT(t, b.Bytes())
}
