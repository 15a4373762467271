// Package pyroscope fetches a Pyroscope server's merged profiles of time
// windows, through the Connect API's generated client
// (querier.v1.QuerierService/SelectMergeProfile), as pprof bytes: the
// runs an input argument pyroscope+http://HOST:PORT/?query=…&type=…&from=…
// &until=…&windows=K stands for.
package pyroscope

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	querierv1 "github.com/grafana/pyroscope/api/gen/proto/go/querier/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/querier/v1/querierv1connect"
)

// Scheme prefixes of a Pyroscope input argument.
const (
	prefixHTTP  = "pyroscope+http://"
	prefixHTTPS = "pyroscope+https://"
)

// MaxWindows bounds K: each window is a request and a run.
const MaxWindows = 10_000

// IsQuery reports whether an input argument is a Pyroscope query.
func IsQuery(s string) bool {
	return strings.HasPrefix(s, prefixHTTP) || strings.HasPrefix(s, prefixHTTPS)
}

// A Query is a parsed input argument: the range [From, Until) of the
// profiles of type ProfileType matching Selector, cut into Windows equal
// windows.
type Query struct {
	Raw         string // the argument, for messages
	BaseURL     string // http(s)://host:port and path prefix, without the trailing /
	Selector    string
	ProfileType string
	From, Until time.Time
	Windows     int
}

// Parse reads an input argument.
func Parse(raw string) (*Query, error) {
	q := &Query{Raw: raw, Windows: 1}
	rest, ok := strings.CutPrefix(raw, "pyroscope+")
	if !ok || !IsQuery(raw) {
		return nil, fmt.Errorf("%s: not a Pyroscope query (pyroscope+http:// or pyroscope+https://)", raw)
	}
	u, err := url.Parse(rest)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%s: expected pyroscope+http://HOST:PORT/?query=SELECTOR&type=PROFILE_TYPE&from=T&until=T&windows=K", raw)
	}
	q.BaseURL = u.Scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/")
	if err := q.params(u.Query()); err != nil {
		return nil, fmt.Errorf("%s: %w", raw, err)
	}
	return q, nil
}

func (q *Query) params(v url.Values) error {
	for k := range v {
		switch k {
		case "query", "type", "from", "until", "windows":
		default:
			return fmt.Errorf("unknown parameter %q (expected query, type, from, until and windows)", k)
		}
	}
	q.Selector, q.ProfileType = v.Get("query"), v.Get("type")
	if q.Selector == "" || q.ProfileType == "" {
		return errors.New("query (a label selector such as {service_name=\"api\"}) and type (a profile type such as process_cpu:cpu:nanoseconds:cpu:nanoseconds) are required")
	}
	var err error
	if q.From, err = parseTime("from", v.Get("from")); err != nil {
		return err
	}
	if q.Until, err = parseTime("until", v.Get("until")); err != nil {
		return err
	}
	if !q.Until.After(q.From) {
		return fmt.Errorf("until (%s) must be after from (%s)", q.Until.UTC().Format(time.RFC3339), q.From.UTC().Format(time.RFC3339))
	}
	if w := v.Get("windows"); w != "" {
		if q.Windows, err = strconv.Atoi(w); err != nil || q.Windows < 1 || q.Windows > MaxWindows {
			return fmt.Errorf("windows=%s: expected a whole number from 1 to %d", w, MaxWindows)
		}
	}
	if q.Until.Sub(q.From) < time.Duration(q.Windows)*time.Millisecond {
		return fmt.Errorf("[from, until) is shorter than %d windows of a millisecond, the server's resolution", q.Windows)
	}
	return nil
}

// parseTime reads Unix seconds or RFC 3339.
func parseTime(name, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("%s is required (Unix seconds or RFC 3339)", name)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > math.MaxInt64/int64(time.Second) {
			return time.Time{}, fmt.Errorf("%s=%s: out of range", name, s)
		}
		return time.Unix(n, 0), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s=%s: expected Unix seconds or RFC 3339 (2006-01-02T15:04:05Z)", name, s)
	}
	return t, nil
}

// Window returns window i's range [start, end), in milliseconds since the
// epoch as the API takes them: the windows tile [From, Until).
func (q *Query) Window(i int) (start, end int64) {
	from, until := q.From.UnixMilli(), q.Until.UnixMilli()
	span := until - from
	return from + span*int64(i)/int64(q.Windows), from + span*int64(i+1)/int64(q.Windows)
}

// WindowName names window i in messages: "window 2/10 [start, end)".
func (q *Query) WindowName(i int) string {
	s, e := q.Window(i)
	f := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }
	return fmt.Sprintf("window %d/%d [%s, %s)", i+1, q.Windows, f(s), f(e))
}

// Auth is how requests authenticate: a bearer token, or basic auth, and
// a tenant (X-Scope-OrgID) for multi-tenant servers; all optional.
type Auth struct {
	Token, User, Password, Tenant string
}

// Cleartext reports whether the query would send credentials (a token, or
// a user and password) unencrypted to another machine: plain http:// to a
// host that is not this machine's loopback, where they can be read on the
// way. A tenant alone is no secret.
func (q *Query) Cleartext(a Auth) bool {
	if a.Token == "" && a.User == "" && a.Password == "" {
		return false
	}
	u, err := url.Parse(q.BaseURL)
	if err != nil || u.Scheme != "http" {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// Options bound and authenticate the requests.
type Options struct {
	Auth Auth
	// Timeout bounds each window's request; 0 means a minute.
	Timeout time.Duration
	// MaxBytes bounds each answer; 0 means no bound.
	MaxBytes int64
	// Parallel is how many windows are fetched at once; 0 means 4.
	Parallel int
	// HTTPClient, when not nil, makes the requests (tests); else a client
	// with the system's verified TLS.
	HTTPClient connect.HTTPClient
}

// A WindowError says which window failed and why.
type WindowError struct {
	Query  string
	Window string
	Err    error
}

func (e *WindowError) Error() string { return fmt.Sprintf("%s: %s: %v", e.Query, e.Window, e.Err) }
func (e *WindowError) Unwrap() error { return e.Err }

// ErrEmpty is matched by the error of a window without samples.
var ErrEmpty = errors.New("the server has no samples for this window (no profile matched the query then)")

// Fetch fetches every window of q, at most opts.Parallel at once, and
// calls done with each window's profile as gzipped pprof, in any order
// but one call at a time. The first error stops the others.
func Fetch(ctx context.Context, q *Query, opts Options, done func(i int, pprof []byte) error) error {
	client := querierv1connect.NewQuerierServiceClient(httpClient(opts), q.BaseURL, clientOptions(opts)...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	parallel := opts.Parallel
	if parallel <= 0 {
		parallel = 4
	}
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, parallel)
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
			cancel()
		}
	}
	for i := range q.Windows {
		slots <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			data, err := fetchWindow(ctx, client, q, i, opts)
			if err != nil {
				fail(&WindowError{Query: q.Raw, Window: q.WindowName(i), Err: err})
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if first != nil {
				return
			}
			if err := done(i, data); err != nil {
				first = err
				cancel()
			}
		}()
	}
	wg.Wait()
	return first
}

func fetchWindow(ctx context.Context, client querierv1connect.QuerierServiceClient, q *Query, i int, opts Options) ([]byte, error) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start, end := q.Window(i)
	req := connect.NewRequest(&querierv1.SelectMergeProfileRequest{
		ProfileTypeID: q.ProfileType, LabelSelector: q.Selector, Start: start, End: end,
	})
	setAuth(req.Header(), opts.Auth)
	// SelectMergeProfile is deprecated in favour of SelectMergeStacktraces
	// with the pprof format, which older servers do not have; querier.v1
	// keeps it.
	//lint:ignore SA1019 answered by every querier.v1 server, old and new
	resp, err := client.SelectMergeProfile(ctx, req)
	if err != nil {
		return nil, explain(err, timeout, opts.MaxBytes)
	}
	p := resp.Msg
	if len(p.Sample) == 0 {
		return nil, ErrEmpty
	}
	raw, err := p.MarshalVT()
	if err != nil {
		return nil, fmt.Errorf("encoding the answer as pprof: %w", err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// explain words a request's error by what the user can do about it.
func explain(err error, timeout time.Duration, maxBytes int64) error {
	switch connect.CodeOf(err) {
	case connect.CodeDeadlineExceeded:
		return fmt.Errorf("no answer within %s (raise it with --timeout)", timeout)
	case connect.CodeResourceExhausted:
		if maxBytes > 0 {
			return fmt.Errorf("the answer exceeds the size limit (%d bytes; raise it with --max-input-size)", maxBytes)
		}
	case connect.CodeUnauthenticated, connect.CodePermissionDenied:
		return fmt.Errorf("%v (set CTDIFF_PYROSCOPE_TOKEN, or CTDIFF_PYROSCOPE_USER and CTDIFF_PYROSCOPE_PASSWORD)", err)
	}
	return err
}

func setAuth(h http.Header, a Auth) {
	switch {
	case a.Token != "":
		h.Set("Authorization", "Bearer "+a.Token)
	case a.User != "" || a.Password != "":
		r := http.Request{Header: h}
		r.SetBasicAuth(a.User, a.Password)
	}
	if a.Tenant != "" {
		h.Set("X-Scope-OrgID", a.Tenant)
	}
}

func httpClient(opts Options) connect.HTTPClient {
	if opts.HTTPClient != nil {
		return opts.HTTPClient
	}
	return &http.Client{} // the default transport verifies TLS
}

func clientOptions(opts Options) []connect.ClientOption {
	var out []connect.ClientOption
	if opts.MaxBytes > 0 {
		n := opts.MaxBytes
		if n > math.MaxInt32 && math.MaxInt == math.MaxInt32 {
			n = math.MaxInt32 // 32-bit platforms
		}
		out = append(out, connect.WithReadMaxBytes(int(n)))
	}
	return out
}
