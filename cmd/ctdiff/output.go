package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	pending.addTemp(tmp.Name()) // removed on SIGINT and SIGTERM too
	defer func() {
		os.Remove(tmp.Name()) // no-op after a successful rename
		pending.dropTemp(tmp.Name())
	}()
	if err := write(tmp); err != nil {
		tmp.Close()
		return targetError(path, tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return targetError(path, tmp.Name(), err)
	}
	return targetError(path, tmp.Name(), os.Rename(tmp.Name(), path))
}

// targetError names the output in an error about its temporary file, which
// the user never asked for: "-o out/r.html: no space left on device", not
// "write out/.r.html.tmp3k2j: ...". Other errors (a report writer's) pass.
func targetError(path, tmp string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe) && pe.Path == tmp:
		return fmt.Errorf("-o %s: %w", path, pe.Err)
	case errors.As(err, &le) && le.Old == tmp:
		return fmt.Errorf("-o %s: %w", path, le.Err)
	}
	return err
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

// createTemp creates a new temporary file beside path. Unlike
// os.CreateTemp (always 0600) it asks for 0666, so the umask decides as for
// any file the user creates, or takes the mode of the file it will replace.
func createTemp(path string) (*os.File, error) {
	mode := os.FileMode(0o666)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	dir, base := filepath.Dir(path), "."+filepath.Base(path)+".tmp"
	for range 100 {
		name := filepath.Join(dir, base+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil && mode != 0o666 {
			err = f.Chmod(mode) // the replaced file's mode, whatever the umask
		}
		if err != nil {
			if f != nil {
				f.Close()
				os.Remove(name)
			}
			return nil, targetError(path, name, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("cannot create a temporary file beside %s", path)
}
