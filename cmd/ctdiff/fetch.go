package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// fetchFlags control inputs given as URLs, as with go tool pprof:
// ctdiff diff http://svc-a/debug/pprof/profile http://svc-b/debug/pprof/profile
type fetchFlags struct {
	seconds int
	timeout time.Duration
	saveDir string
}

// isURL reports whether a command-line input is an http(s) URL.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
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
// is kept so the comparison can be reproduced from it; its name says where
// and when it came from.
func (f *fetchFlags) fetch(s *streams, raw, dir string) (string, error) {
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	pu, _ := url.Parse(u)
	name := fmt.Sprintf("%s%s-%s.pb.gz", sanitize(pu.Host), sanitize(pu.Path), time.Now().UTC().Format("20060102T150405.000"))
	out, err := os.CreateTemp(dir, strings.TrimSuffix(name, ".pb.gz")+"-*.pb.gz")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, resp.Body); err != nil {
		out.Close()
		os.Remove(out.Name())
		return "", fmt.Errorf("fetching %s: %w", u, err)
	}
	if err := out.Close(); err != nil {
		return "", err
	}
	fmt.Fprintf(s.Err, "ctdiff: fetched %s → %s\n", u, out.Name())
	return out.Name(), nil
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
	return os.MkdirTemp("", "ctdiff-fetched-")
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
