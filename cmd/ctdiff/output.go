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
// or "-". A regular file is written atomically: to a temporary file in the
// same directory, renamed over the target only when write succeeded, so a
// failed or interrupted run never leaves a half-written report or clobbers
// an old one. A symbolic link is followed and the file it names replaced,
// so the link stays. A target that exists and is not a regular file (a
// device such as /dev/null, a FIFO, a socket) is written in place, as
// `cat > target` would: renaming over it would destroy it.
func writeOutput(s *streams, path string, binary bool, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		if binary && s.OutIsTerminal {
			return fmt.Errorf("refusing to write binary output to a terminal: use -o FILE or redirect stdout")
		}
		return write(s.Out)
	}
	target, st, err := resolveTarget(path)
	if err != nil {
		return err
	}
	if st != nil && st.IsDir() {
		return fmt.Errorf("-o %s: is a directory", path)
	}
	if st != nil && !st.Mode().IsRegular() {
		return writeInPlace(path, target, binary, write)
	}
	return writeAtomic(path, target, write)
}

// writeAtomic writes through a temporary file beside target, renamed over
// it when write succeeded. path is what the user named, for errors.
func writeAtomic(path, target string, write func(io.Writer) error) error {
	tmp, err := createTemp(path, target)
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
	return targetError(path, tmp.Name(), os.Rename(tmp.Name(), target))
}

// writeInPlace writes to a target that is not a regular file: opened for
// writing without creating or truncating it, so a device stays a device and
// a FIFO's reader gets the output. Binary output is refused on a terminal
// there as on standard output (-o /dev/tty).
func writeInPlace(path, target string, binary bool, write func(io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return targetError(path, target, err)
	}
	if binary && isTerminal(f) {
		f.Close()
		return fmt.Errorf("refusing to write binary output to a terminal (-o %s): use -o FILE or redirect stdout", path)
	}
	if err := write(f); err != nil {
		f.Close()
		return targetError(path, target, err)
	}
	return targetError(path, target, f.Close())
}

// maxLinks bounds the symbolic links resolveTarget follows, as the kernel's
// own limit (ELOOP after 40) does.
const maxLinks = 40

// resolveTarget follows symbolic links from path to the file they name, and
// returns it with its FileInfo (nil when it does not exist yet: a dangling
// link's target is created, as `cat > link` would create it).
func resolveTarget(path string) (string, fs.FileInfo, error) {
	p := path
	for range maxLinks {
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil, nil
		}
		if err != nil {
			return "", nil, targetError(path, p, err)
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return p, st, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", nil, targetError(path, p, err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", nil, fmt.Errorf("-o %s: too many levels of symbolic links", path)
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

// createTemp creates a new temporary file beside target, the file path
// resolves to. Unlike os.CreateTemp (always 0600) it asks for 0666, so the
// umask decides as for any file the user creates, or takes the mode of the
// file it will replace.
func createTemp(path, target string) (*os.File, error) {
	mode := os.FileMode(0o666)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	dir, base := filepath.Dir(target), "."+filepath.Base(target)+".tmp"
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
