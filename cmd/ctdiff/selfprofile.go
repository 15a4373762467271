package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// selfProfile is ctdiff profiling itself, as go test and the go command
// do: --cpuprofile and --memprofile write pprof profiles of this run, which
// ctdiff (or go tool pprof) then reads like any other. The flags are hidden:
// they are for ctdiff's developers (BENCHMARKS.md), not part of the CLI's
// contract.
type selfProfile struct {
	cpu, mem string
	cpuFile  *os.File
}

func (p *selfProfile) register(root *cobra.Command) {
	fl := root.PersistentFlags()
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of this run to the file")
	fl.StringVar(&p.mem, "memprofile", "", "write an allocation profile of this run to the file")
	_ = fl.MarkHidden("cpuprofile")
	_ = fl.MarkHidden("memprofile")
}

// start begins CPU profiling when asked for.
func (p *selfProfile) start() error {
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.cpuFile = f
	return nil
}

// stop ends CPU profiling and writes the allocation profile. It runs
// whether or not the command succeeded, so a failing run can be profiled.
func (p *selfProfile) stop() error {
	var errs []error
	if p.cpuFile != nil {
		pprof.StopCPUProfile()
		if err := p.cpuFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
		}
		p.cpuFile = nil
	}
	if p.mem != "" {
		runtime.GC() // the profile shows allocations up to the last GC
		f, err := os.Create(p.mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
	}
	return errors.Join(errs...)
}
