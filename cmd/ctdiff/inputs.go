package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/spf13/cobra"
)

// inputFlags are the flags of every command that reads profiles.
type inputFlags struct {
	from         string
	thread       string
	pids         []int64
	maxInputSize int64
	maxSamples   int64
	skipInvalid  bool
	fetch        fetchFlags
}

func (f *inputFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "input format, instead of sniffing the content: "+strings.Join(convert.FormatNames(), ", "))
	fl.StringVar(&f.thread, "thread", "", "keep only samples of threads whose name (or process/thread) matches this regular expression")
	fl.Int64SliceVar(&f.pids, "pid", nil, "keep only samples of these process `ids` (comma-separated, or the flag repeated)")
	fl.Lookup("pid").DefValue = "" // no "(default [])" in --help
	fl.Int64Var(&f.maxInputSize, "max-input-size", convert.DefaultMaxDecompressed, "largest decompressed input size in bytes (a gzip-bomb guard)")
	fl.Int64Var(&f.maxSamples, "max-samples", convert.DefaultMaxTimedSamples,
		"most timestamped samples of one input kept one by one (convert, cct --latency, diff --metric latency; elsewhere samples of one stack are merged as they are read)")
	fl.BoolVar(&f.skipInvalid, "skip-invalid-lines", false, "folded stacks: skip lines that are not \"frame;frame COUNT\" with one warning counting them, instead of failing at the first")
	fl.IntVar(&f.fetch.seconds, "seconds", 0, "for URL inputs: profile duration to request (adds ?seconds=N, as go tool pprof does)")
	fl.DurationVar(&f.fetch.timeout, "timeout", 0, "for URL inputs: how long to wait for each profile (default: --seconds + 30s)")
	fl.StringVar(&f.fetch.saveDir, "save-dir", "", "for URL inputs: where fetched profiles are kept (default: beside -o, else a temporary directory)")
	_ = cmd.RegisterFlagCompletionFunc("from", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return convert.FormatNames(), cobra.ShellCompDirectiveNoFileComp
	})
}

// options turns the flags into convert.Options.
func (f *inputFlags) options() (convert.Options, error) {
	o := convert.Options{From: f.from, PIDs: f.pids, MaxDecompressed: f.maxInputSize, MaxTimedSamples: f.maxSamples, SkipInvalidLines: f.skipInvalid}
	if f.thread != "" {
		re, err := regexp.Compile(f.thread)
		if err != nil {
			return o, fmt.Errorf("--thread: %w", err)
		}
		o.Thread = re
	}
	return o, nil
}

// inputArgs is the Args check of commands that read one or more profiles.
func inputArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%s takes at least one input profile: a file, a directory, a glob, @LIST, a URL or - for standard input (see '%s --help')",
			cmd.Name(), cmd.CommandPath())
	}
	return nil
}

// warnFetchFlags says when flags that apply to URL inputs only were given
// and no input is a URL: they would otherwise be ignored silently.
func (f *inputFlags) warnFetchFlags(s *streams, args []string) {
	var given []string
	for _, fl := range []struct {
		name string
		set  bool
	}{{"--seconds", f.fetch.seconds != 0}, {"--timeout", f.fetch.timeout != 0}, {"--save-dir", f.fetch.saveDir != ""}} {
		if fl.set {
			given = append(given, fl.name)
		}
	}
	if len(given) == 0 || slices.ContainsFunc(args, isURL) {
		return
	}
	verb := "applies"
	if len(given) > 1 {
		verb = "apply"
	}
	printLine(s.Err, "ctdiff: warning: %s %s only to URL inputs, and no input is a URL: ignored", strings.Join(given, ", "), verb)
}

// expandInputs turns command-line inputs into file paths: a file is itself,
// a directory stands for the profiles in it (dirProfiles), @LIST for the
// inputs LIST names, one a line (listInputs), and anything else is tried
// as a glob, whose matches are sorted and expanded like inputs. "-"
// (standard input) and URLs pass through; standard input can be read
// once. Symbolic links are followed.
func expandInputs(args []string) ([]string, error) {
	var out []string
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, fmt.Errorf("standard input (-) is given twice; it can be read once")
			}
			stdin = true
		}
		var err error
		if list, ok := strings.CutPrefix(a, "@"); ok && list != "" {
			out, err = listInputs(out, list)
		} else {
			out, err = expandInput(out, a)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// expandInput appends the paths input a stands for to out.
func expandInput(out []string, a string) ([]string, error) {
	if a == "-" || isURL(a) {
		return append(out, a), nil
	}
	st, err := os.Stat(a)
	switch {
	case err == nil && st.IsDir():
		files, err := dirProfiles(a)
		if err != nil {
			return nil, err
		}
		return append(out, files...), nil
	case err == nil:
		return append(out, a), nil
	case !strings.ContainsAny(a, "*?["):
		return nil, err // not a pattern: the Stat error names the file
	}
	m, gerr := filepath.Glob(a)
	switch {
	case gerr != nil:
		return nil, fmt.Errorf("%s: %w", a, gerr)
	case len(m) == 0:
		return nil, fmt.Errorf("%s: no file matched", a)
	}
	slices.Sort(m)
	for _, p := range m {
		// A match is a file or a directory (of profiles), which a
		// symbolic link may stand for; a pattern never expands again.
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: %s: %w", a, p, linkError(err))
		case st.IsDir():
			files, err := dirProfiles(p)
			if err != nil {
				return nil, err
			}
			out = append(out, files...)
		default:
			out = append(out, p)
		}
	}
	return out, nil
}

// listInputs appends the inputs a list file names to out: one a line, a
// file, a directory, a glob or a URL; blank lines and lines starting
// with # are skipped, and relative paths are relative to the list's
// directory, so a list works from wherever ctdiff runs. Errors name the
// list and the line.
func listInputs(out []string, list string) ([]string, error) {
	data, err := os.ReadFile(list)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("@%s: cannot read the list of inputs: %w", list, err)
	}
	dir := filepath.Dir(list)
	n := len(out)
	for i, line := range strings.Split(string(data), "\n") {
		in := strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if in == "" || strings.HasPrefix(in, "#") {
			continue
		}
		if in == "-" {
			return nil, fmt.Errorf("%s:%d: standard input (-) cannot be listed: give it on the command line", list, i+1)
		}
		if !isURL(in) && !filepath.IsAbs(in) {
			in = filepath.Join(dir, in)
		}
		if out, err = expandInput(out, in); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%s: %w", in, linkError(pe.Err))
			}
			return nil, fmt.Errorf("%s:%d: %w", list, i+1, err)
		}
	}
	if len(out) == n {
		return nil, fmt.Errorf("%s: the list names no inputs", list)
	}
	return out, nil
}

// linkError says what a failed Stat of a path means for its reader.
func linkError(err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return errors.New("a loop of symbolic links")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// dirProfiles lists the profiles in dir: its regular, non-hidden files
// but documentation, sorted, and the files its symbolic links lead to
// (under the links' names); not its subdirectories. A link that leads
// nowhere (missing, or a loop) is an error: the profile it stood for
// would otherwise be left out silently.
func dirProfiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || isDoc(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		regular := e.Type().IsRegular()
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			if err != nil {
				return nil, fmt.Errorf("%s: a symbolic link that leads to no file: %w", p, linkError(err))
			}
			regular = st.Mode().IsRegular()
		}
		if regular {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: directory holds no profiles", dir)
	}
	return files, nil
}

// isDoc reports files that sit beside profiles but are not profiles
// (a README or the command that regenerates them).
func isDoc(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasPrefix(lower, "readme") || strings.HasSuffix(lower, ".md") || strings.HasSuffix(lower, ".sh")
}

// loadWith expands the command-line inputs, fetches URLs (keeping the
// fetched files, whose paths replace the URLs in the returned paths) and
// reads every profile with opts (from options, adjusted by the caller).
// output is the -o path, beside which fetched profiles are kept.
func (f *inputFlags) loadWith(s *streams, args []string, output string, opts convert.Options) ([]string, []*convert.Result, error) {
	paths, err := f.resolve(s, args, output)
	if err != nil {
		return nil, nil, err
	}
	results, err := readProfiles(s, paths, opts)
	return paths, results, err
}

// resolve expands the command-line inputs into the paths to read, fetching
// URLs into files.
func (f *inputFlags) resolve(s *streams, args []string, output string) ([]string, error) {
	paths, err := expandInputs(args)
	if err != nil {
		return nil, err
	}
	dir := ""
	for i, p := range paths {
		if !isURL(p) {
			continue
		}
		if dir == "" {
			if dir, err = f.fetch.saveDirFor(output); err != nil {
				return nil, err
			}
		}
		if paths[i], err = f.fetch.fetch(s, p, dir, f.maxInputSize); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// readProfiles reads each path, printing warnings to stderr.
func readProfiles(s *streams, paths []string, opts convert.Options) ([]*convert.Result, error) {
	prog := s.progress
	if prog == nil {
		prog = startProgress(s, "reading", inputSize(paths))
		defer prog.finish()
	}
	prog.countRuns(len(paths))
	out := make([]*convert.Result, 0, len(paths))
	for _, p := range paths {
		res, err := readInput(p, opts, prog)
		if err != nil {
			prog.clear()
			return nil, err
		}
		prog.runDone()
		if len(res.Warnings) > 0 {
			prog.clear()
		}
		for _, w := range res.Warnings {
			printLine(s.Err, "ctdiff: %s: warning: %s", p, w)
		}
		out = append(out, res)
	}
	return out, nil
}
