// Command ctdiff finds performance regressions in CPU profiles: it converts
// profiles of many formats to pprof, shows their calling-context trees and
// compares several "before" runs with several "after" runs.
//
// main only wires the process to run; every command lives in its own file
// and turns flags into the Options of the packages that do the work.
package main

import "os"

func main() {
	removeOnSignal()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
