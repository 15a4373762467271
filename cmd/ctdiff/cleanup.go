package main

import (
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
)

// A run leaves behind only what it completed: the report, and the profiles
// it fetched when it succeeded. Files it makes on the way are registered
// here, so that a failed run and a run interrupted by SIGINT or SIGTERM
// remove them: temporary outputs (writeOutput), which are renamed over the
// target only at the end, and fetched profiles, kept only for a run that
// succeeds (a failed one may have fetched gigabytes of something else).
type cleanup struct {
	mu sync.Mutex
	// temps are removed whenever the process stops early.
	temps []string
	// fetched are removed when the run fails or is interrupted, fetchDirs
	// (directories made for them) after them if they are then empty.
	fetched, fetchDirs []string
}

// pending is the process's cleanup: signals reach the process, not a run.
var pending cleanup

func (c *cleanup) addTemp(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.temps = append(c.temps, path)
}

// dropTemp forgets a temporary file that was renamed or removed.
func (c *cleanup) dropTemp(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.temps = slices.DeleteFunc(c.temps, func(p string) bool { return p == path })
}

func (c *cleanup) addFetched(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetched = append(c.fetched, path)
}

func (c *cleanup) addFetchDir(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fetchDirs = append(c.fetchDirs, dir)
}

// finish ends a run: ok keeps what it fetched, else that is removed.
// Temporary outputs are removed either way (writeOutput has already).
func (c *cleanup) finish(ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(!ok)
}

// interrupt removes everything a stopped run leaves.
func (c *cleanup) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(true)
}

func (c *cleanup) removeLocked(fetched bool) {
	for _, p := range c.temps {
		os.Remove(p)
	}
	if fetched {
		for _, p := range c.fetched {
			os.Remove(p)
		}
		for _, d := range slices.Backward(c.fetchDirs) {
			os.Remove(d) // only when empty: the user's --save-dir is never made here
		}
	}
	c.temps, c.fetched, c.fetchDirs = nil, nil, nil
}

// removeOnSignal makes SIGINT and SIGTERM remove what the run leaves, then
// exit with the status a shell gives a process the signal ended (130 or
// 143).
func removeOnSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		pending.interrupt()
		os.Exit(signalStatus(sig))
	}()
}

func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + 2
}
