package convert

import (
	"errors"
	"strings"
	"testing"
)

// White space runs of any length cost at most maxXMLSpace bytes (and keep
// a newline, which separates a literal stack's frames); a text longer than
// maxXMLToken is refused at its line.
func TestPerfViewXMLHugeTokens(t *testing.T) {
	space := strings.Repeat(" ", 3*maxXMLSpace)
	doc := "<StackWindow><StackSource>" + space + "\n" + space +
		"<Samples><Sample Time=\"1\">\nleaf" + space + "\n" + space + "caller\n</Sample></Samples></StackSource></StackWindow>"
	res, err := Read(strings.NewReader(doc), "x.perfView.xml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range res.Profile.Sample[0].Location {
		names = append(names, l.Line[0].Function.Name)
	}
	if strings.Join(names, ",") != "leaf,caller" {
		t.Fatalf("the literal stack read as %q", names)
	}

	long := "<StackWindow><StackSource>\n<Frames><Frame ID=\"0\">" + strings.Repeat("a", maxXMLToken+1) + "</Frame></Frames></StackSource></StackWindow>"
	_, err = Read(strings.NewReader(long), "x.perfView.xml", Options{})
	want := "x.perfView.xml: line 2: more than 16777216 bytes of text or of one tag without markup"
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}
