package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Options become ctdiff diff flags: keys with dashes or underscores, values
// of every TOML type, arrays repeated, paths resolved against the
// manifest's directory, defaults overridden by the component's own.
func TestManifestDiffArgs(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "m.toml", `
[defaults]
min_delta = "20ms"
alpha = 0.01
no-prune = true

[[component]]
name = "svc"
old = "old"
new = "/abs/new"
options = { min-delta = "1%", pid = [1, 2], bench-base = "b.txt", top = 5 }
`)
	m, err := readManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	args, err := m.diffArgs(m.Components[0], dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "old"), "/abs/new", "--alpha=0.01", "--bench-base=" + filepath.Join(dir, "b.txt"),
		"--min-delta=1%", "--no-prune=true", "--pid=1", "--pid=2", "--top=5"}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Errorf("args\n%q, want\n%q", args, want)
	}
	asWritten, _ := m.diffArgs(m.Components[0], "")
	if asWritten[0] != "old" {
		t.Errorf("as written, OLD is %q, want old", asWritten[0])
	}
}

// A manifest's paths are relative to its directory, an @LIST's list too.
func TestManifestRelTo(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"old", "/m/old"},
		{"@old.list", "@/m/old.list"},
		{"@/abs/old.list", "@/abs/old.list"},
		{"@", "/m/@"},
		{"/abs/new", "/abs/new"},
		{"-", "-"},
		{"", ""},
		{"http://host/debug/pprof/profile", "http://host/debug/pprof/profile"},
	} {
		if got := relTo("/m", tt.in); got != tt.want {
			t.Errorf("relTo(/m, %q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzReadManifest: any manifest is read or refused with one line naming
// the file, never a panic; a manifest read has components that diffArgs
// can turn into arguments or refuse.
func FuzzReadManifest(f *testing.F) {
	if data, err := os.ReadFile("../../testdata/release/manifest.toml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("[[component]]\nname = \"x\"\nresult = \"r.json\"\n"))
	f.Add([]byte("[defaults]\npid = [1, 2]\n[[component]]\nname = \"a\"\nold = \"o\"\nnew = \"n\"\noptions = { thread = \"main\", no_prune = true }\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "m.toml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := readManifest(path)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, path) || strings.Contains(msg, "\n") {
				t.Fatalf("error is not one line naming the file: %q", msg)
			}
			return
		}
		for _, c := range m.Components {
			if c.Name == "" || (c.Result == "") == (c.Old == "" || c.New == "") {
				t.Fatalf("component %+v passed the checks", c)
			}
			if args, err := m.diffArgs(c, dir); err == nil && c.Result == "" && len(args) < 2 {
				t.Fatalf("arguments %q lack OLD and NEW", args)
			}
		}
	})
}

// A component's options decode into ctdiff diff's options through diff's
// flags: every TOML type, arrays repeated, paths resolved against the
// manifest's directory, OLD and NEW too.
func TestManifestDiffOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "m.toml", `
[defaults]
min_delta = "20ms"
alpha = 0.01
no-prune = true

[[component]]
name = "svc"
old = "old"
new = "/abs/new"
options = { min-delta = "1%", pid = [1, 2], bench-base = "b.txt", top = 5, aggregate = "intersect" }
`)
	m, err := readManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	o, args, err := m.diffOptions(m.Components[0], dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := [2]string{filepath.Join(dir, "old"), "/abs/new"}; args != want {
		t.Errorf("OLD and NEW %q, want %q", args, want)
	}
	got := []any{o.minDelta, o.alpha, o.noPrune, o.inputs.pids, o.norm.benchBase, o.top, o.aggregate, o.match, o.norm.normalize}
	want := []any{"1%", 0.01, true, []int64{1, 2}, filepath.Join(dir, "b.txt"), 5, "intersect", "zam", "auto"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options %v, want %v", got, want)
	}
}

// An option that does not fit its flag is refused with the error ctdiff
// diff gives for the argument --key=value.
func TestManifestOptionErrors(t *testing.T) {
	t.Parallel()
	for _, kv := range [][2]string{
		{"top", "x"}, {"alpha", "high"}, {"pid", "a"}, {"no-prune", "maybe"}, {"frobnicate", "1"},
		{"-x", "1"}, {"=x", "1"}, {"", "v"}, {"top=5", "6"}, {"help", "x"}, {"timeout", "soon"},
	} {
		cmd := newDiffCmd(&streams{Out: io.Discard, Err: io.Discard})
		cmd.InitDefaultHelpFlag()
		want := cmd.ParseFlags([]string{"--" + kv[0] + "=" + kv[1]})
		o := &diffOptions{}
		into := &cobra.Command{Use: "diff"}
		o.register(into)
		into.InitDefaultHelpFlag()
		got := setFlag(into.Flags(), kv[0], kv[1])
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s = %s: error %v, want %v", kv[0], kv[1], got, want)
		}
	}
}

// Manifests nested deeply, or too large, are refused with one line naming
// the file and where before the TOML decoder sees them: it took over a GB
// on each of these shapes. A manifest at the limits is read.
func TestManifestShapeLimits(t *testing.T) {
	dir := t.TempDir()
	component := "\n[[component]]\nname = \"x\"\nresult = \"r.json\"\n"
	deep := strings.Repeat(".a", 100_000)
	for _, tc := range []struct{ name, data, want string }{
		{"dotted header", "[a" + deep + "]\nk = 1\n" + component,
			"deep.toml:1:65: a key, table or array nested more than 32 deep"},
		{"dotted key", "[defaults]\nk" + deep + " = 1\n" + component,
			"deep.toml:2:66: a key, table or array nested more than 32 deep"},
		{"inline tables", "[defaults]\nk = " + strings.Repeat("{a = ", 100_000) + "1" + strings.Repeat("}", 100_000) + "\n" + component,
			"deep.toml:2:"},
		{"arrays", "[defaults]\nk = " + strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000) + "\n" + component,
			"deep.toml:2:37: a key, table or array nested more than 32 deep"},
		{"arrays, 2 MB", "[defaults]\nk = " + strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000) + "\n" + component,
			"deep.toml: larger than 1048576 bytes, the most a manifest may hold"},
		{"large", component + "# " + strings.Repeat("x", maxManifestBytes) + "\n",
			"deep.toml: larger than 1048576 bytes, the most a manifest may hold"},
	} {
		path := writeFile(t, dir, "deep.toml", tc.data)
		_, stderr, code := ctdiff("report", path)
		if code != 2 || !strings.HasPrefix(stderr, "ctdiff: "+path[:len(path)-len("deep.toml")]+tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q, want 2 and %q", tc.name, code, stderr[:min(len(stderr), 300)], tc.want)
		}
	}
	// At the limits, and with brackets, dots and '#' inside strings and
	// comments, which nest nothing.
	ok := "[defaults]\nk" + strings.Repeat(".a", 31) + " = 1\nl = " + strings.Repeat("[", 32) + strings.Repeat("]", 32) +
		"\ns = \"[[[{{{.a.a.a\\\"[\" # [[[[.a.a.a\nm = '''\n" + strings.Repeat("[{.", 40) + "'''\nn = \"\"\"\n" + strings.Repeat("[{.", 40) + "\"\"\"\n" +
		"o = '" + strings.Repeat("[.", 40) + "'\n" + component
	m, err := readManifest(writeFile(t, dir, "ok.toml", ok))
	if err != nil || len(m.Components) != 1 {
		t.Fatalf("a manifest within the limits: %v", err)
	}
}
