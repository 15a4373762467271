package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/spf13/cobra"
)

// inputFlags are the flags of every command that reads profiles.
type inputFlags struct {
	from         string
	thread       string
	pids         []int64
	maxInputSize int64
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
	o := convert.Options{From: f.from, PIDs: f.pids, MaxDecompressed: f.maxInputSize, SkipInvalidLines: f.skipInvalid}
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
		return fmt.Errorf("%s takes at least one input profile: a file, a directory, a glob, a URL or - for standard input (see '%s --help')",
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
// a directory stands for the regular, non-hidden files in it (sorted, not
// recursive), and anything else is tried as a glob. "-" (standard input) and
// URLs pass through; standard input can be read once.
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
		if a == "-" || isURL(a) {
			out = append(out, a)
			continue
		}
		st, err := os.Stat(a)
		switch {
		case err == nil && st.IsDir():
			files, err := dirProfiles(a)
			if err != nil {
				return nil, err
			}
			out = append(out, files...)
		case err == nil:
			out = append(out, a)
		case !strings.ContainsAny(a, "*?["):
			return nil, err // not a pattern: the Stat error names the file
		default:
			m, gerr := filepath.Glob(a)
			switch {
			case gerr != nil:
				return nil, fmt.Errorf("%s: %w", a, gerr)
			case len(m) == 0:
				return nil, fmt.Errorf("%s: no file matched", a)
			}
			slices.Sort(m)
			out = append(out, m...)
		}
	}
	return out, nil
}

func dirProfiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && !isDoc(e.Name()) {
			files = append(files, filepath.Join(dir, e.Name()))
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
	out := make([]*convert.Result, 0, len(paths))
	for _, p := range paths {
		res, err := readInput(p, opts, prog)
		if err != nil {
			prog.clear()
			return nil, err
		}
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
