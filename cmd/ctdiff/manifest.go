package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/ctdiff/ctdiff/internal/oneline"
	"github.com/ctdiff/ctdiff/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A manifest names the components of a release for ctdiff report (TOML):
//
//	[defaults]                 # ctdiff diff options for every component
//	min-delta = "50ms"
//
//	[[component]]
//	name = "web"
//	old = "web/old"            # OLD and NEW as ctdiff diff takes them
//	new = "web/new"
//	ecosystem = "js"           # optional: go, js, java, native
//	options = { normalize = "none" }
//
//	[[component]]
//	name = "billing"
//	result = "billing.json"    # or a ctdiff diff --format json result
//
// Paths are relative to the manifest's directory.
type manifest struct {
	Defaults   map[string]any      `toml:"defaults"`
	Components []manifestComponent `toml:"component"`
}

type manifestComponent struct {
	Name      string         `toml:"name"`
	Old       string         `toml:"old"`
	New       string         `toml:"new"`
	Result    string         `toml:"result"`
	Ecosystem string         `toml:"ecosystem"`
	Options   map[string]any `toml:"options"`
}

// pathOptions are diff options whose values are paths, resolved against the
// manifest's directory like old and new.
var pathOptions = []string{"bench-base", "bench-new", "save-dir"}

// outputOptions are diff options that make no sense per component: the
// report command has its own.
var outputOptions = []string{"format", "output", "o", "fail-on-regression", "help", "h"}

// maxManifestBytes and maxManifestDepth bound a manifest before the TOML
// decoder reads it: a real one is a few KB, nested three levels ([defaults]
// or [[component]], options, an array), while a header of 100,000 dotted
// parts or arrays 10^6 deep took the decoder over a GB.
const (
	maxManifestBytes = 1 << 20
	maxManifestDepth = 32
)

// readManifest reads and checks a manifest. Its paths stay as written:
// relTo resolves them against the manifest's directory.
func readManifest(path string) (*manifest, error) {
	var m manifest
	data, err := readManifestData(path)
	if err != nil {
		return nil, err
	}
	md, err := toml.Decode(string(data), &m)
	if err != nil {
		if !startsLikeTOML(path) {
			// A report, a profile, notes: the TOML parser's complaint
			// about its first byte would not say what is wrong.
			return nil, fmt.Errorf("%s: neither a report manifest (TOML) nor a %s result (ctdiff diff --format json)", path, report.DiffSchema)
		}
		var perr toml.ParseError
		// The parser quotes the input in its messages, control
		// characters included: errors are one line.
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%s:%d:%d: %s", path, perr.Position.Line, perr.Position.Col, oneline.Escape(perr.Message))
		}
		return nil, fmt.Errorf("%s: %s", path, oneline.Escape(err.Error()))
	}
	for _, k := range md.Undecoded() {
		if len(k) > 0 && (k[0] == "defaults" || len(k) > 1 && k[0] == "component" && k[1] == "options") {
			continue // option maps: checked by diff's flags (diffOptions)
		}
		return nil, fmt.Errorf("%s: unknown key %q (a manifest has [defaults] and [[component]] tables with name, old, new, result, ecosystem and options)", path, k.String())
	}
	if len(m.Components) == 0 {
		return nil, fmt.Errorf("%s: no [[component]]: a manifest names at least one component", path)
	}
	seen := map[string]bool{}
	for i := range m.Components {
		c := &m.Components[i]
		where := fmt.Sprintf("%s: component %d", path, i+1)
		if c.Name != "" {
			where += fmt.Sprintf(" (%q)", c.Name)
		}
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("%s: no name", where)
		case seen[c.Name]:
			return nil, fmt.Errorf("%s: the name is taken by another component", where)
		case c.Result != "" && (c.Old != "" || c.New != ""):
			return nil, fmt.Errorf("%s: give either result or old and new, not both", where)
		case c.Result == "" && (c.Old == "" || c.New == ""):
			return nil, fmt.Errorf("%s: needs old and new (the inputs to compare) or result (a ctdiff diff --format json file)", where)
		case c.Ecosystem != "" && !slices.Contains(report.Ecosystems, report.Ecosystem(c.Ecosystem)):
			return nil, fmt.Errorf("%s: ecosystem %q, expected one of go, js, java, native", where, c.Ecosystem)
		}
		seen[c.Name] = true
	}
	return &m, nil
}

// readManifestData reads a manifest of at most maxManifestBytes, nested at
// most maxManifestDepth deep (manifestDepth).
func readManifestData(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", path, err)
	case len(data) > maxManifestBytes:
		return nil, fmt.Errorf("%s: larger than %d bytes, the most a manifest may hold", path, maxManifestBytes)
	}
	if line, col, ok := manifestDepth(data); !ok {
		return nil, fmt.Errorf("%s:%d:%d: a key, table or array nested more than %d deep; a manifest needs a few levels", path, line, col, maxManifestDepth)
	}
	return data, nil
}

// manifestDepth checks how deep a TOML document nests: each open '[' or
// '{' and each dot of a key is a level (a value's dot, as in 1.5, counts
// too: one more at most). Strings and comments nest nothing. It returns
// where the document first goes deeper than maxManifestDepth, ok false.
func manifestDepth(data []byte) (line, col int, ok bool) {
	open, dots := 0, 0
	line, lineStart := 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line, lineStart = line+1, i+1
			dots = 0
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end, lines, last := tomlStringEnd(data, i)
			if lines > 0 {
				line, lineStart = line+lines, last
			}
			i = end - 1
		case '[', '{':
			open++
			dots = 0
		case ']', '}':
			open = max(open-1, 0)
			dots = 0
		case '=', ',':
			dots = 0
		case '.':
			dots++
		}
		if open+dots > maxManifestDepth {
			return line, i - lineStart + 1, false
		}
	}
	return 0, 0, true
}

// tomlStringEnd returns where the string that starts at data[i] ends
// (after its closing quotes, or at the line's end for an unclosed
// single-line one, which the decoder refuses), how many newlines it holds
// and where the line after the last of them starts.
func tomlStringEnd(data []byte, i int) (end, lines, lineStart int) {
	q := data[i]
	delim := []byte{q}
	if bytes.HasPrefix(data[i:], []byte{q, q, q}) {
		delim = []byte{q, q, q}
	}
	multi := len(delim) == 3
	for j := i + len(delim); j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++ // the escaped byte, a newline too in a multi-line string
			if j < len(data) && data[j] == '\n' {
				lines, lineStart = lines+1, j+1
			}
		case data[j] == '\n' && !multi:
			return j, lines, lineStart
		case data[j] == '\n':
			lines, lineStart = lines+1, j+1
		case bytes.HasPrefix(data[j:], delim):
			// A multi-line string may end in up to two more quotes.
			j += len(delim)
			for k := 0; multi && k < 2 && j < len(data) && data[j] == q; k++ {
				j++
			}
			return j, lines, lineStart
		}
	}
	return len(data), lines, lineStart
}

// tomlStart matches the start of a TOML document's first statement: a
// table header or a key and "=".
var tomlStart = regexp.MustCompile(`^[ \t]*(\[|[A-Za-z0-9_.'"-]+[ \t]*=)`)

// startsLikeTOML reports whether the first line of the file that is not
// blank or a comment starts a TOML statement. A file that cannot be read,
// or holds nothing but blanks and comments, counts as TOML: the manifest
// reader's own errors say what is wrong with it.
func startsLikeTOML(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	for _, line := range bytes.Split(bytes.TrimPrefix(head[:n], []byte("\ufeff")), []byte("\n")) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		return tomlStart.Match(line)
	}
	return true
}

// relTo resolves a manifest path against the manifest's directory, the
// list of an @LIST too; empty paths, absolute paths, URLs and "-" stay as
// they are.
func relTo(dir, p string) string {
	if list, ok := strings.CutPrefix(p, "@"); ok && list != "" {
		return "@" + relTo(dir, list)
	}
	if dir == "" || p == "" || p == "-" || isURL(p) || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// options merges a component's options over the manifest's defaults, keys
// with dashes (they may use dashes or underscores), and returns them with
// their keys sorted, so runs are reproducible.
func (m *manifest) options(c manifestComponent) (map[string]any, []string) {
	opts := map[string]any{}
	for k, v := range m.Defaults {
		opts[strings.ReplaceAll(k, "_", "-")] = v
	}
	for k, v := range c.Options {
		opts[strings.ReplaceAll(k, "_", "-")] = v
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return opts, keys
}

// diffArgs writes a component as the ctdiff diff arguments that compare
// the same way: OLD NEW --key=value..., paths resolved against dir (""
// keeps them as written). The report shows them as the component's source.
func (m *manifest) diffArgs(c manifestComponent, dir string) ([]string, error) {
	opts, keys := m.options(c)
	args := []string{relTo(dir, c.Old), relTo(dir, c.New)}
	for _, k := range keys {
		values, err := componentValues(opts, k)
		if err != nil {
			return nil, err
		}
		for _, v := range values {
			if slices.Contains(pathOptions, k) {
				v = relTo(dir, v)
			}
			args = append(args, "--"+k+"="+v)
		}
	}
	return args, nil
}

// diffOptions decodes a component's options, over the manifest's
// defaults, into ctdiff diff's options, through diff's own flags: a value
// means what its flag means, and one that does not fit is refused with the
// flag's error. Paths are resolved against dir, OLD and NEW too, which
// come back as the second result. The options are not parsed yet
// (diffOptions.config).
func (m *manifest) diffOptions(c manifestComponent, dir string) (*diffOptions, [2]string, error) {
	o := &diffOptions{}
	cmd := &cobra.Command{Use: "diff"}
	o.register(cmd)
	cmd.InitDefaultHelpFlag()
	opts, keys := m.options(c)
	for _, k := range keys {
		values, err := componentValues(opts, k)
		if err != nil {
			return nil, [2]string{}, err
		}
		for _, v := range values {
			if slices.Contains(pathOptions, k) {
				v = relTo(dir, v)
			}
			if err := setFlag(cmd.Flags(), k, v); err != nil {
				return nil, [2]string{}, err
			}
		}
	}
	return o, [2]string{relTo(dir, c.Old), relTo(dir, c.New)}, nil
}

// componentValues are the flag values of option k: refused when the
// report sets it for all components (outputOptions).
func componentValues(opts map[string]any, k string) ([]string, error) {
	if slices.Contains(outputOptions, k) {
		return nil, fmt.Errorf("option %q is the report's to set, not a component's (ctdiff report has --format, -o and --fail-on-regression)", k)
	}
	return optionValues(k, opts[k])
}

// setFlag sets a flag as the argument --name=value sets it, with the
// errors pflag gives for that argument.
func setFlag(fl *pflag.FlagSet, name, value string) error {
	arg := "--" + name + "=" + value
	if name == "" || name[0] == '-' || name[0] == '=' {
		return fmt.Errorf("bad flag syntax: %s", arg)
	}
	name, value, _ = strings.Cut(arg[2:], "=")
	if fl.Lookup(name) == nil {
		return fmt.Errorf("unknown flag: --%s", name)
	}
	return fl.Set(name, value)
}

// optionValues renders a TOML value as flag values: one per array element.
func optionValues(key string, v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case int64:
		return []string{strconv.FormatInt(v, 10)}, nil
	case float64:
		return []string{strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case []any:
		var out []string
		for _, e := range v {
			s, err := optionValues(key, e)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("option %q: a %T, expected a string, number, boolean or array of them", key, v)
}
