package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/oneline"
	"github.com/spf13/cobra"
)

// Exit codes, the contract CI gates rely on: 0 when no regression gates
// the run, 1 when --fail-on-regression found a cause, 2 for a usage or
// input error.
const (
	exitOK         = 0
	exitRegression = 1 // --fail-on-regression and a cause was found
	exitError      = 2 // usage or input error
)

// errRegression is returned by commands that found a regression under
// --fail-on-regression: the report is written, and the exit code is 1.
var errRegression = errors.New("regression found")

// streams are the process's outputs, injected so tests run the real CLI
// in-process.
type streams struct {
	Out, Err io.Writer
	// OutIsTerminal reports whether Out is a terminal (binary output to a
	// terminal is refused).
	OutIsTerminal bool
	// ErrIsTerminal reports whether Err is a terminal: only then is
	// progress shown (progress.go).
	ErrIsTerminal bool
	// progress, when set, is the progress of the running command, which
	// readProfiles adds to instead of showing its own.
	progress *progress
}

// run executes the CLI with args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	s := &streams{Out: stdout, Err: stderr, OutIsTerminal: isTerminal(stdout), ErrIsTerminal: isTerminal(stderr)}
	var prof selfProfile
	root := newRootCmd(s)
	flagError := root.FlagErrorFunc()
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return flagError(c, singleDashHint(c, args, err)) })
	prof.register(root)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		adviseHeap(cmd, args)
		return prof.start()
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if perr := prof.stop(); err == nil {
		err = perr
	}
	// Fetched profiles stay for a run that completed (a regression found
	// is a completed run), so it can be repeated from them.
	pending.finish(err == nil || errors.Is(err, errRegression))
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errRegression):
		return exitRegression
	}
	fmt.Fprintf(stderr, "ctdiff: %s\n", oneline.Escape(inputFlagHints(err).Error()))
	return exitError
}

// inputFlagHints adds to the errors of convert that a flag of every
// command reading profiles changes (inputFlags) the flag's name. The
// library's message is replaced where it stands in err's, since the
// command wraps it with the input's name and position.
func inputFlagHints(err error) error {
	msg := err.Error()
	var tooLarge *convert.SizeLimitError
	if errors.As(err, &tooLarge) {
		hint := tooLarge.Error() + " (raise it with --max-input-size)"
		if tooLarge.Entry == "" {
			hint = fmt.Sprintf("%v (%d bytes; raise it with --max-input-size)", convert.ErrTooLarge, tooLarge.Limit)
		}
		msg = strings.Replace(msg, tooLarge.Error(), hint, 1)
	}
	var samples *convert.SampleLimitError
	if errors.As(err, &samples) {
		msg = strings.Replace(msg, samples.Error(), samples.Error()+" (raise it with --max-samples)", 1)
	}
	var unknown *convert.UnknownFormatError
	if errors.As(err, &unknown) {
		msg = strings.Replace(msg, unknown.Error(), unknown.Error()+" (use --from to force one)", 1)
	}
	if errors.Is(err, convert.ErrInvalidLine) {
		msg += " (--skip-invalid-lines skips such lines, with one warning counting them)"
	}
	if msg == err.Error() {
		return err
	}
	return hinted(err, msg)
}

// printLine writes one line of a message (a warning, a notice) to w, with
// the control characters of the names it quotes escaped, as errors are:
// a name must not act on the terminal or start a line of its own.
func printLine(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "%s\n", oneline.Escape(fmt.Sprintf(format, args...)))
}

func newRootCmd(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "ctdiff",
		Short: "Find performance regressions in CPU profiles",
		Long: `ctdiff reads CPU profiles (pprof, Chrome DevTools and V8, ETW, Java, perf, folded
stacks), builds calling-context trees and compares "before" runs with "after" runs.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// --version and -v print what `ctdiff version` prints.
		Version: version(),
	}
	root.SetVersionTemplate("ctdiff {{.Version}}\n")
	root.AddCommand(newConvertCmd(s), newCCTCmd(s), newDiffCmd(s), newReportCmd(s), newVersionCmd(s))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// CommandPath is "ctdiff" for the root, "ctdiff diff" for diff.
		return fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())
	})
	return root
}

func newVersionCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of ctdiff",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(s.Out, "ctdiff %s\n", version())
			return nil
		},
	}
}

// version is the module version when installed with go install, else the
// VCS revision the binary was built from, else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, kv := range bi.Settings {
		if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
			return "devel " + kv.Value[:12]
		}
	}
	return "devel"
}
