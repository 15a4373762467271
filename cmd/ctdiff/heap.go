package main

import (
	"slices"

	"github.com/ctdiff/ctdiff/internal/hugeheap"
	"github.com/spf13/cobra"
)

// heapPerInputByte estimates the heap a command fills per byte of its
// inputs, for asking huge pages for it (adviseHeap). Peak RSS over the
// inputs' size measured on gzipped pprof: 54x on synth's 200,000-stack pair,
// 80x on an independent pair of 200k-stack Go profiles, 52x on three runs
// a side (BENCHMARKS.md); raw
// text and JSON inputs take 1-4x. An estimate too large costs address space
// and a few milliseconds (hugeheap caps it at 4 GiB), one too small leaves
// the rest of the heap on 4 KiB pages.
const heapPerInputByte = 96

// unknownInputSize stands for an input whose size cannot be known before
// it is read: standard input or a URL.
const unknownInputSize = 4 << 20

// adviseHeap asks for transparent huge pages for the heap that the command
// cmd, reading the inputs args, is about to fill (internal/hugeheap): on a
// virtual machine that shadows page tables, faulting in ctdiff diff's heap
// in 4 KiB pages took half of its CPU time. Commands that read no profiles
// ask for nothing; arguments that do not name inputs (a mistyped path)
// count for nothing, and the command says what is wrong with them.
func adviseHeap(cmd *cobra.Command, args []string) {
	hugeheap.Advise(heapEstimate(cmd.Name(), args))
}

// heapEstimate is the heap the command named name is expected to fill
// reading the inputs args, 0 for commands that read no profiles.
func heapEstimate(name string, args []string) int64 {
	if !slices.Contains([]string{"convert", "cct", "diff", "report"}, name) {
		return 0
	}
	var n int64
	for _, a := range args {
		paths, err := expandInputs([]string{a})
		if err != nil {
			continue
		}
		for _, p := range paths {
			if size := inputSize([]string{p}); size > 0 {
				n += size
			} else if p == "-" || isURL(p) {
				n += unknownInputSize
			}
		}
	}
	return n * heapPerInputByte
}
