package main

import (
	"bufio"
	"io"
	"os"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/google/pprof/profile"
	"github.com/spf13/cobra"
)

type convertOptions struct {
	inputs    inputFlags
	output    string
	aggregate bool
}

func newConvertCmd(s *streams) *cobra.Command {
	o := &convertOptions{}
	cmd := &cobra.Command{
		Use:   "convert INPUT... [-o OUT.pb.gz]",
		Short: "Convert profiles to pprof (several inputs are merged)",
		Long: `convert reads profiles in any supported format and writes one gzipped pprof
profile that go tool pprof opens. Several inputs (files, directories, globs or
@LIST, a file naming one input per line) are merged as go tool pprof merges
them: into the sample types every input has, with a warning naming the others.`,
		Args: inputArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConvert(s, o, args)
		},
	}
	o.inputs.register(cmd)
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "output file (default stdout, refused when it is a terminal)")
	cmd.Flags().BoolVar(&o.aggregate, "aggregate", false, "merge identical stacks and drop per-sample timestamps")
	return cmd
}

func runConvert(s *streams, o *convertOptions, args []string) error {
	copts, err := o.inputs.options()
	if err != nil {
		return err
	}
	copts.Aggregate = o.aggregate
	o.inputs.warnFetchFlags(s, args)
	paths, err := o.inputs.resolve(s, args, o.output)
	if err != nil {
		return err
	}
	var results []*convert.Result
	if len(paths) == 1 {
		// A big pprof input (or one on standard input, whose size is not
		// known) is written again as it was read: its samples never
		// become profile.Samples (convert.PprofStream).
		var done bool
		if done, results, err = convertPprofStream(s, o, paths[0], copts); done || err != nil {
			return err
		}
	}
	// A single input is written as it is read: readers that return their
	// samples as complete stacks (DevTools, .cpuprofile) then need no
	// profile.Sample per sample, which for a trace of millions of samples
	// is gigabytes. Several inputs are merged as profiles.
	copts.Stacks, copts.CompleteStacks = len(paths) == 1, true
	if results == nil {
		if results, err = readProfiles(s, paths, copts); err != nil {
			return err
		}
	}
	if len(results) == 1 {
		write := func(w io.Writer) error { return pprofio.WriteSource(w, results[0].Samples) }
		if o.output == "" || o.output == "-" {
			// Only stdout needs the buffer: a file is written to a
			// temporary one (writeOutput), and a 500 MB trace's 323 MB of
			// pprof need not wait in memory beside its samples.
			write = bufferOutput(write)
		}
		return writeOutput(s, o.output, true, write)
	}
	ps := make([]*profile.Profile, len(results))
	for i, r := range results {
		ps[i] = r.Profile
	}
	p, warnings, err := convert.MergeProfiles(paths, ps)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		printLine(s.Err, "ctdiff: warning: merging %d inputs: %s", len(ps), w)
	}
	return writeOutput(s, o.output, true, bufferOutput(func(w io.Writer) error {
		return pprofio.Write(w, p)
	}))
}

// convertPprofStream converts path when it is a pprof input that
// convert.PprofStreams takes, read with Options.Rewrite, and reports
// whether it did. Standard
// input that it does not take is read here, as readProfiles would,
// since it cannot be read again: its results are returned.
func convertPprofStream(s *streams, o *convertOptions, path string, copts convert.Options) (bool, []*convert.Result, error) {
	in := &switchReader{r: os.Stdin}
	size := int64(-1)
	var f *os.File
	if path != "-" {
		var err error
		if f, err = os.Open(path); err != nil {
			return false, nil, nil // readProfiles says what is wrong
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return false, nil, nil
		}
		size, in.r = st.Size(), f
	}
	br := bufio.NewReaderSize(in, 64<<10)
	if !convert.PprofStreams(br, size, copts) {
		if f != nil {
			return false, nil, nil
		}
		copts.Stacks, copts.CompleteStacks = true, true
		res, err := convert.Read(br, path, copts)
		if err != nil {
			return false, nil, err
		}
		for _, w := range res.Warnings {
			printLine(s.Err, "ctdiff: %s: warning: %s", path, w)
		}
		return false, []*convert.Result{res}, nil
	}
	// Only now is there a bar: a file left to readProfiles gets its own.
	var prog *progress
	if f != nil {
		prog = startProgress(s, "reading", size)
		defer prog.finish()
		in.r = prog.reader(f)
	}
	copts.Rewrite = true
	res, err := convert.Read(br, path, copts)
	prog.clear()
	if err != nil {
		return false, nil, err
	}
	for _, w := range res.Warnings {
		printLine(s.Err, "ctdiff: %s: warning: %s", path, w)
	}
	// Written straight to stdout too: Read checked the samples, so only
	// the writer can fail.
	return true, nil, writeOutput(s, o.output, true, res.Rewrite.Write)
}

// A switchReader reads r, which may change between reads.
type switchReader struct{ r io.Reader }

func (s *switchReader) Read(b []byte) (int, error) { return s.r.Read(b) }
