package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/pyroscope"
)

// fetchFlags control inputs given as URLs, as with go tool pprof:
// ctdiff diff http://svc-a/debug/pprof/profile http://svc-b/debug/pprof/profile
type fetchFlags struct {
	seconds int
	timeout time.Duration
	saveDir string
}

// isURL reports whether a command-line input is an http(s) URL or a
// Pyroscope query (pyroscope+http(s)://, fetchPyroscope).
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || pyroscope.IsQuery(s)
}

// profileURL adds ?seconds=N to a /debug/pprof/profile (or /trace) URL
// that does not name a duration, as go tool pprof's -seconds does.
func profileURL(raw string, seconds int) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad URL %q: %w", raw, err)
	}
	if seconds > 0 && u.Query().Get("seconds") == "" {
		q := u.Query()
		q.Set("seconds", strconv.Itoa(seconds))
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// fetch downloads a profile into dir and returns the file's path. The file
// is kept so the comparison can be reproduced from it, unless the run fails
// (cleanup.go); its name says where and when it came from. A response is
// read up to limit bytes (--max-input-size): a profile that large would be
// refused when read, and an endless stream must not fill the disk.
func (f *fetchFlags) fetch(s *streams, raw, dir string, limit int64) (string, error) {
	u, err := profileURL(raw, f.seconds)
	if err != nil {
		return "", err
	}
	timeout := f.timeout
	if timeout <= 0 {
		timeout = time.Duration(f.seconds)*time.Second + 30*time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return "", fmt.Errorf("fetching %s: %s: %s", u, resp.Status, strings.TrimSpace(string(msg)))
	}
	if limit <= 0 {
		limit = convert.DefaultMaxDecompressed // as the readers take 0
	}
	tooLarge := fmt.Errorf("fetching %s: the response exceeds the size limit (%d bytes; raise it with --max-input-size)", u, limit)
	if resp.ContentLength > limit {
		return "", tooLarge
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	pu, _ := url.Parse(u)
	out, err := createFetched(dir, fetchedName(pu, time.Now()))
	if err != nil {
		return "", err
	}
	pending.addFetched(out.Name()) // removed if the run fails or is interrupted
	n, err := io.Copy(out, io.LimitReader(resp.Body, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		os.Remove(out.Name())
		return "", fmt.Errorf("fetching %s: %w", u, err)
	case n > limit:
		os.Remove(out.Name())
		return "", tooLarge
	}
	printLine(s.Err, "ctdiff: fetched %s → %s", u, out.Name())
	return out.Name(), nil
}

// fetchedName names a fetched profile after its host, path and time:
// "127.0.0.1_6060_debug_pprof_profile-20250102T150405.000.pb.gz".
func fetchedName(u *url.URL, t time.Time) string {
	return fmt.Sprintf("%s_%s-%s.pb.gz", sanitize(u.Host), sanitize(u.Path), t.UTC().Format("20060102T150405.000"))
}

// createFetched creates a new file named name in dir, or name-2, name-3...
// when the same URL was fetched in the same millisecond (diff URL URL). Its
// mode is 0666 less the umask, as for any file the user makes (os.CreateTemp
// would make it 0600).
func createFetched(dir, name string) (*os.File, error) {
	stem := strings.TrimSuffix(name, ".pb.gz")
	for i := 1; ; i++ {
		p := filepath.Join(dir, name)
		if i > 1 {
			p = filepath.Join(dir, fmt.Sprintf("%s-%d.pb.gz", stem, i))
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && i < 1000 {
			continue
		}
		return f, err
	}
}

// saveDirFor is where fetched profiles go: --save-dir, else beside the
// report written with -o, else a new temporary directory.
func (f *fetchFlags) saveDirFor(output string) (string, error) {
	switch {
	case f.saveDir != "":
		return f.saveDir, nil
	case output != "" && output != "-":
		return filepath.Dir(output), nil
	}
	dir, err := os.MkdirTemp("", "ctdiff-fetched-")
	if err == nil {
		pending.addFetchDir(dir) // removed with the profiles of a failed run
	}
	return dir, err
}

// sanitize keeps a URL part usable in a file name.
func sanitize(s string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, s), "_")
}

// fetchPyroscope fetches the windows of a Pyroscope query (a run each)
// into dir, concurrently, and returns their paths in window order. Each
// answer is bounded by limit (--max-input-size) and --timeout; the
// credentials come from the environment, never the command line.
func (f *fetchFlags) fetchPyroscope(s *streams, raw, dir string, limit int64) ([]string, error) {
	q, err := pyroscope.Parse(raw)
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = convert.DefaultMaxDecompressed // as the readers take 0
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var prog *progress
	if s.ErrIsTerminal {
		prog = newProgress(s.Err, "fetching "+q.BaseURL, -1)
		prog.countRuns(q.Windows)
		defer prog.finish()
	}
	opts := pyroscope.Options{Auth: pyroscope.Auth{
		Token: os.Getenv("CTDIFF_PYROSCOPE_TOKEN"), User: os.Getenv("CTDIFF_PYROSCOPE_USER"),
		Password: os.Getenv("CTDIFF_PYROSCOPE_PASSWORD"), Tenant: os.Getenv("CTDIFF_PYROSCOPE_TENANT"),
	}, Timeout: f.timeout, MaxBytes: limit}
	if q.Cleartext(opts.Auth) {
		printLine(s.Err, "ctdiff: warning: %s: the CTDIFF_PYROSCOPE_ credentials go to the server unencrypted (plain http); use pyroscope+https:// where the server has TLS", q.BaseURL)
	}
	host := strings.TrimPrefix(strings.TrimPrefix(q.BaseURL, "http://"), "https://")
	paths := make([]string, q.Windows)
	err = pyroscope.Fetch(context.Background(), q, opts, func(i int, data []byte) error {
		start, end := q.Window(i)
		name := fmt.Sprintf("%s_pyroscope-%s-%s.pb.gz", sanitize(host), msName(start), msName(end))
		out, err := createFetched(dir, name)
		if err != nil {
			return err
		}
		pending.addFetched(out.Name()) // removed if the run fails or is interrupted
		_, err = out.Write(data)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		paths[i] = out.Name()
		prog.runDone()
		return err
	})
	if err != nil {
		prog.clear()
		return nil, err
	}
	printLine(s.Err, "ctdiff: fetched %d windows of %s → %s", q.Windows, q.Raw, dir)
	return paths, nil
}

// msName writes milliseconds since the epoch for a file name.
func msName(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("20060102T150405.000")
}
