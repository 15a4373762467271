package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	googlev1 "github.com/grafana/pyroscope/api/gen/proto/go/google/v1"
	querierv1 "github.com/grafana/pyroscope/api/gen/proto/go/querier/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/querier/v1/querierv1connect"
)

// fakePyroscope is a Pyroscope querier built from the API module's
// generated handler interface: it holds real profiles at points in time
// and answers SelectMergeProfile with the merge of those in the window,
// reduced to the requested sample type, as the server does.
type fakePyroscope struct {
	querierv1connect.UnimplementedQuerierServiceHandler
	profiles []*profile.Profile
	at       []int64 // milliseconds since the epoch
	token    string  // the bearer token it requires, if any
	block    bool    // answer only when the client gives up
	// barrier holds the first requests until this many were in flight at
	// once (or a while passes): with 2, the first request is answered
	// only if another ran at the same time.
	barrier int

	mu                  sync.Mutex
	inflight, most, got int
	cond                *sync.Cond
}

func newFakePyroscope(t *testing.T) *fakePyroscope {
	f := &fakePyroscope{}
	f.cond = sync.NewCond(&f.mu)
	for i, side := range []string{"old", "old", "old", "new", "new", "new"} {
		p, err := readProfileFile(filepath.Join("..", "..", "testdata", "example", side, "run"+string(rune('1'+i%3))+".pb.gz"))
		if err != nil {
			t.Fatal(err)
		}
		// old runs at 1000, 1060 and 1120 s; new ones at 2000, 2060, 2120.
		f.profiles = append(f.profiles, p)
		f.at = append(f.at, (1000+int64(i/3)*1000+int64(i%3)*60)*1000)
	}
	return f
}

func readProfileFile(path string) (*profile.Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return profile.ParseData(b)
}

// window returns the server's answer for [start, end) as pprof bytes, nil
// when no profile is in it.
func (f *fakePyroscope) window(t testing.TB, start, end int64, typeID string) []byte {
	var in []*profile.Profile
	for i, p := range f.profiles {
		if f.at[i] >= start && f.at[i] < end {
			in = append(in, p.Copy())
		}
	}
	if len(in) == 0 {
		return nil
	}
	m, err := profile.Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(typeID, ":")
	col := -1
	for j, st := range m.SampleType {
		if len(parts) == 5 && st.Type == parts[1] && st.Unit == parts[2] {
			col = j
		}
	}
	if col < 0 {
		t.Fatalf("no sample type %s", typeID)
	}
	m.SampleType = m.SampleType[col : col+1]
	m.DefaultSampleType = ""
	for _, s := range m.Sample {
		s.Value = []int64{s.Value[col]}
	}
	var buf bytes.Buffer
	if err := m.WriteUncompressed(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func (f *fakePyroscope) SelectMergeProfile(ctx context.Context, req *connect.Request[querierv1.SelectMergeProfileRequest]) (*connect.Response[googlev1.Profile], error) {
	if f.token != "" && req.Header().Get("Authorization") != "Bearer "+f.token {
		return nil, connect.NewError(connect.CodeUnauthenticated, nil)
	}
	f.wait()
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	var p googlev1.Profile
	if data := f.window(testingTB{}, req.Msg.Start, req.Msg.End, req.Msg.ProfileTypeID); data != nil {
		if err := p.UnmarshalVT(data); err != nil {
			return nil, err
		}
	}
	return connect.NewResponse(&p), nil
}

// wait counts the request in flight and holds it at the barrier.
func (f *fakePyroscope) wait() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inflight++
	f.got++
	f.most = max(f.most, f.inflight)
	f.cond.Broadcast()
	deadline := time.Now().Add(10 * time.Second)
	for f.most < f.barrier && time.Now().Before(deadline) {
		go func() { time.Sleep(50 * time.Millisecond); f.cond.Broadcast() }()
		f.cond.Wait()
	}
	f.inflight--
}

// testingTB fails by panicking, for the server's goroutines (Connect turns
// the panic into an error the client reports).
type testingTB struct{ testing.TB }

func (testingTB) Fatal(args ...any)                 { panic(args) }
func (testingTB) Fatalf(format string, args ...any) { panic(format) }

func (f *fakePyroscope) serve(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle(querierv1connect.NewQuerierServiceHandler(f))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

const pyroType = "process_cpu:cpu:nanoseconds:cpu:nanoseconds"

func pyroQuery(srv, from, until string, windows int) string {
	return "pyroscope+" + srv + "/?query=" + url.QueryEscape(`{service_name="example"}`) + "&type=" + pyroType +
		"&from=" + from + "&until=" + until + "&windows=" + string(rune('0'+windows))
}

// TestPyroscopeDiffSameAsFiles: ctdiff diff over two Pyroscope queries of
// three windows each is ctdiff diff over the server's six answers saved
// as files, and the windows were fetched concurrently.
func TestPyroscopeDiffSameAsFiles(t *testing.T) {
	f := newFakePyroscope(t)
	f.barrier = 2
	srv := f.serve(t)
	dir := t.TempDir()
	oldQ := pyroQuery(srv.URL, "1000", "1180", 3)
	newQ := pyroQuery(srv.URL, time.Unix(2000, 0).UTC().Format(time.RFC3339), time.Unix(2180, 0).UTC().Format(time.RFC3339), 3)
	got, errOut, code := ctdiff("diff", "--save-dir", filepath.Join(dir, "fetched"), oldQ, newQ)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "ctdiff: fetched 3 windows of " + oldQ + " → " + filepath.Join(dir, "fetched"); !strings.Contains(errOut, want) {
		t.Errorf("stderr %q does not say %q", errOut, want)
	}
	if f.got != 6 || f.most < 2 {
		t.Errorf("%d requests, at most %d at once; want 6, concurrently", f.got, f.most)
	}

	for _, side := range []struct {
		name  string
		start int64
	}{{"old", 1000_000}, {"new", 2000_000}} {
		os.MkdirAll(filepath.Join(dir, side.name), 0o755)
		for i := range int64(3) {
			data := f.window(t, side.start+i*60_000, side.start+(i+1)*60_000, pyroType)
			if err := os.WriteFile(filepath.Join(dir, side.name, "w"+string(rune('1'+i))+".pb"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, errOut, wantCode := ctdiff("diff", filepath.Join(dir, "old"), filepath.Join(dir, "new"))
	if wantCode != code {
		t.Fatalf("exit %d over the server, %d over files: %s", code, wantCode, errOut)
	}
	// The reports differ only in the runs' file names, listed last.
	got, _, _ = strings.Cut(got, "\nBase: ")
	want, _, _ = strings.Cut(want, "\nBase: ")
	if got != want {
		t.Errorf("diff over the server differs from diff over the files:\n%s", lineDiff(want, got))
	}
	if !strings.Contains(got, "example.checkRules") {
		t.Errorf("the diff does not show the injected slowdown:\n%s", got)
	}
}

func TestPyroscopeErrors(t *testing.T) {
	f := newFakePyroscope(t)
	srv := f.serve(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	blocking := newFakePyroscope(t)
	blocking.block = true
	slow := blocking.serve(t)
	locked := newFakePyroscope(t)
	locked.token = "s3cret"
	auth := locked.serve(t)

	w1 := "window 1/1 [1970-01-01T00:16:40.000Z, 1970-01-01T00:17:40.000Z)"
	tests := []struct {
		name  string
		args  []string
		query string
		want  string // after "ctdiff: QUERY: "
	}{
		{"server down", nil, pyroQuery(downURL, "1000", "1060", 1), w1 + ": unavailable: "},
		{"empty window", nil, pyroQuery(srv.URL, "1000", "1240", 4),
			"window 4/4 [1970-01-01T00:19:40.000Z, 1970-01-01T00:20:40.000Z): the server has no samples for this window (no profile matched the query then)"},
		{"oversized answer", []string{"--max-input-size", "1000"}, pyroQuery(srv.URL, "1000", "1060", 1),
			w1 + ": the answer exceeds the size limit (1000 bytes; raise it with --max-input-size)"},
		{"slow answer", []string{"--timeout", "300ms"}, pyroQuery(slow.URL, "1000", "1060", 1),
			w1 + ": no answer within 300ms (raise it with --timeout)"},
		{"no credentials", nil, pyroQuery(auth.URL, "1000", "1060", 1),
			w1 + ": unauthenticated (set CTDIFF_PYROSCOPE_TOKEN, or CTDIFF_PYROSCOPE_USER and CTDIFF_PYROSCOPE_PASSWORD)"},
		{"no type", nil, "pyroscope+" + srv.URL + "/?query=x&from=1&until=2",
			"query (a label selector such as {service_name=\"api\"}) and type (a profile type such as process_cpu:cpu:nanoseconds:cpu:nanoseconds) are required"},
		{"until before from", nil, pyroQuery(srv.URL, "2000", "1000", 1), "until (1970-01-01T00:16:40Z) must be after from (1970-01-01T00:33:20Z)"},
		{"bad time", nil, pyroQuery(srv.URL, "yesterday", "1000", 1), "from=yesterday: expected Unix seconds or RFC 3339 (2006-01-02T15:04:05Z)"},
		{"typo", nil, pyroQuery(srv.URL, "1000", "1060", 1) + "&window=2", `unknown parameter "window" (expected query, type, from, until and windows)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"cct", "--save-dir", dir}, tt.args...)
			_, errOut, code := ctdiff(append(args, tt.query)...)
			want := "ctdiff: " + tt.query + ": " + tt.want
			if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q\nwant exit 2 and one line starting %q", code, errOut, want)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("a failed run left %d fetched files", len(left))
			}
		})
	}
	t.Run("token over plain http to another machine", func(t *testing.T) {
		t.Setenv("CTDIFF_PYROSCOPE_TOKEN", "s3cret")
		q := pyroQuery("http://pyroscope.invalid:4040", "1000", "1060", 1)
		_, errOut, code := ctdiff("cct", "--save-dir", t.TempDir(), "--timeout", "2s", q)
		want := "ctdiff: warning: http://pyroscope.invalid:4040: the CTDIFF_PYROSCOPE_ credentials go to the server unencrypted (plain http); use pyroscope+https:// where the server has TLS\n"
		if code != 2 || !strings.HasPrefix(errOut, want) {
			t.Errorf("exit %d, stderr %q\nwant exit 2 and first the line %q", code, errOut, want)
		}
	})
	t.Run("token from the environment", func(t *testing.T) {
		t.Setenv("CTDIFF_PYROSCOPE_TOKEN", "s3cret")
		_, errOut, code := ctdiff("cct", "--save-dir", t.TempDir(), pyroQuery(auth.URL, "1000", "1060", 1))
		if code != 0 {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}
