package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeOutput runs write against the named file, or stdout when path is ""
// or "-". A file is written atomically: to a temporary file in the same
// directory, renamed over the target only when write succeeded, so a failed
// or interrupted run never leaves a half-written report or clobbers an old one.
func writeOutput(s *streams, path string, binary bool, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		if binary && s.OutIsTerminal {
			return fmt.Errorf("refusing to write binary output to a terminal: use -o FILE or redirect stdout")
		}
		return write(s.Out)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// bufferOutput renders into memory first; for formats whose writers may fail
// midway and that go to stdout, so nothing partial is printed.
func bufferOutput(write func(io.Writer) error) func(io.Writer) error {
	return func(w io.Writer) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		_, err := w.Write(b.Bytes())
		return err
	}
}
