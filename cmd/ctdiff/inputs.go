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
	"github.com/ctdiff/ctdiff/internal/pyroscope"
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

// sidesHint says how to give the sides of a diff when args are more than
// OLD and NEW because a shell expanded unquoted globs into files (two
// or more of args are files): which files are OLD and which NEW cannot be
// told then. It is "" when args do not look so.
func sidesHint(args []string) string {
	var files, dirs, unmatched []string
	for _, a := range args {
		st, err := os.Stat(a)
		switch {
		case err == nil && st.Mode().IsRegular():
			files = append(files, a)
			if d := filepath.Dir(a); len(dirs) == 0 || dirs[len(dirs)-1] != d {
				dirs = append(dirs, d)
			}
		case err != nil && strings.ContainsAny(a, "*?["):
			unmatched = append(unmatched, a)
		}
	}
	if len(files) < 2 {
		return ""
	}
	how := "quote each side's glob so that ctdiff expands it, or give each side as a directory or an @LIST"
	if len(dirs) == 2 && dirs[0] != dirs[1] {
		pattern := "*" + profileExt(files)
		how = fmt.Sprintf("quote each side's glob so that ctdiff expands it (ctdiff diff '%s' '%s'), or give each side as a directory (ctdiff diff %s %s) or an @LIST",
			filepath.Join(dirs[0], pattern), filepath.Join(dirs[1], pattern), dirs[0], dirs[1])
	}
	msg := fmt.Sprintf(": did the shell expand unquoted globs? %d of them are files, and which are OLD and which NEW cannot be told: %s", len(files), how)
	if len(unmatched) > 0 {
		msg += fmt.Sprintf("; %s matched no file", strings.Join(unmatched, ", "))
	}
	return msg
}

// profileExt is the extension every file has, from its first dot (".pb.gz"),
// or "".
func profileExt(files []string) string {
	ext := ""
	for i, f := range files {
		base := filepath.Base(f)
		e := ""
		if j := strings.IndexByte(base[1:], '.'); j >= 0 {
			e = base[j+1:]
		}
		if i > 0 && e != ext {
			return ""
		}
		ext = e
	}
	return ext
}

// expandInputs turns command-line inputs into file paths: a file is itself,
// a directory stands for the profiles in it (dirProfiles), @LIST for the
// inputs LIST names, one a line (listInputs), and anything else is tried
// as a glob, whose matches are sorted and expanded like inputs. "-"
// (standard input) and URLs pass through; standard input can be read
// once. Symbolic links are followed.
func expandInputs(args []string) ([]string, error) {
	paths, _, err := expandInputsSkipping(args)
	return paths, err
}

// expandInputsSkipping is expandInputs also returning what the directories
// hold that is neither a file nor a directory (skipped: specialFile).
func expandInputsSkipping(args []string) (paths, skipped []string, err error) {
	e := &inputExpansion{}
	stdin := false
	for _, a := range args {
		if a == "-" {
			if stdin {
				return nil, nil, fmt.Errorf("standard input (-) is given twice; it can be read once")
			}
			stdin = true
		}
		var err error
		if list, ok := strings.CutPrefix(a, "@"); ok && list != "" {
			err = e.list(list)
		} else {
			err = e.input(a)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return e.paths, e.skipped, nil
}

// An inputExpansion is the paths inputs stand for, so far, and what their
// directories hold that is skipped.
type inputExpansion struct {
	paths, skipped []string
}

// input appends the paths input a stands for.
func (e *inputExpansion) input(a string) error {
	if a == "-" || isURL(a) {
		e.paths = append(e.paths, a)
		return nil
	}
	st, err := os.Stat(a)
	switch {
	case err == nil && st.IsDir():
		return e.dir(a)
	case err == nil:
		e.paths = append(e.paths, a)
		return nil
	case !strings.ContainsAny(a, "*?["):
		return err // not a pattern: the Stat error names the file
	}
	m, gerr := filepath.Glob(a)
	switch {
	case gerr != nil:
		return fmt.Errorf("%s: %w", a, gerr)
	case len(m) == 0:
		return fmt.Errorf("%s: no file matched", a)
	}
	slices.Sort(m)
	for _, p := range m {
		// A match is a file or a directory (of profiles), which a
		// symbolic link may stand for; a pattern never expands again.
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Errorf("%s: %s: %w", a, p, linkError(err))
		case st.IsDir():
			if err := e.dir(p); err != nil {
				return err
			}
		default:
			e.paths = append(e.paths, p)
		}
	}
	return nil
}

// listInputs appends the inputs a list file names to out: one a line, a
// file, a directory, a glob or a URL; blank lines and lines starting
// with # are skipped, and relative paths are relative to the list's
// directory, so a list works from wherever ctdiff runs. Errors name the
// list and the line.
func (e *inputExpansion) list(list string) error {
	data, err := os.ReadFile(list)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("@%s: cannot read the list of inputs: %w", list, err)
	}
	dir := filepath.Dir(list)
	n := len(e.paths)
	for i, line := range strings.Split(string(data), "\n") {
		in := strings.TrimSpace(strings.TrimPrefix(line, "\ufeff"))
		if in == "" || strings.HasPrefix(in, "#") {
			continue
		}
		if in == "-" {
			return fmt.Errorf("%s:%d: standard input (-) cannot be listed: give it on the command line", list, i+1)
		}
		if !isURL(in) && !filepath.IsAbs(in) {
			in = filepath.Join(dir, in)
		}
		if err := e.input(in); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("%s: %w", in, linkError(pe.Err))
			}
			return fmt.Errorf("%s:%d: %w", list, i+1, err)
		}
	}
	if len(e.paths) == n {
		return fmt.Errorf("%s: the list names no inputs", list)
	}
	return nil
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

// dir appends the profiles in dir: its regular, non-hidden files but
// documentation, sorted, and the files its symbolic links lead to (under
// the links' names); not its subdirectories. A link that leads nowhere
// (missing, or a loop) is an error: the profile it stood for would
// otherwise be left out silently. A FIFO, socket or device, or a link to
// one, is skipped, and noted in e.skipped: read whole, a FIFO could block
// forever and a device never end, but the caller says what was left out.
func (e *inputExpansion) dir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	n, skipped := len(e.paths), len(e.skipped)
	for _, d := range entries {
		if strings.HasPrefix(d.Name(), ".") || isDoc(d.Name()) {
			continue
		}
		p := filepath.Join(dir, d.Name())
		mode, link := d.Type(), ""
		if mode&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			if err != nil {
				return fmt.Errorf("%s: a symbolic link that leads to no file: %w", p, linkError(err))
			}
			mode, link = st.Mode(), "a symbolic link to "
		}
		switch {
		case mode.IsRegular():
			e.paths = append(e.paths, p)
		case !mode.IsDir():
			e.skipped = append(e.skipped, fmt.Sprintf("%s: %s%s, not a file: skipped (name it to read it)", p, link, specialFile(mode)))
		}
	}
	switch {
	case len(e.paths) > n:
		return nil
	case len(e.skipped) > skipped:
		return fmt.Errorf("%s: directory holds no profiles; %s", dir, e.skipped[skipped])
	}
	return fmt.Errorf("%s: directory holds no profiles", dir)
}

// specialFile names the kind of a file that is neither a regular file
// nor a directory.
func specialFile(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
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
	paths, skipped, err := expandInputsSkipping(args)
	if err != nil {
		return nil, err
	}
	for _, sk := range skipped {
		printLine(s.Err, "ctdiff: warning: %s", sk)
	}
	dir := ""
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !isURL(p) {
			out = append(out, p)
			continue
		}
		if dir == "" {
			if dir, err = f.fetch.saveDirFor(output); err != nil {
				return nil, err
			}
		}
		if pyroscope.IsQuery(p) { // one run per time window
			windows, err := f.fetch.fetchPyroscope(s, p, dir, f.maxInputSize)
			if err != nil {
				return nil, err
			}
			out = append(out, windows...)
			continue
		}
		fetched, err := f.fetch.fetch(s, p, dir, f.maxInputSize)
		if err != nil {
			return nil, err
		}
		out = append(out, fetched)
	}
	return out, nil
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
		res, err := readInput(p, opts, prog, nil)
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
