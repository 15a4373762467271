package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/tools/hostile"
	"github.com/google/pprof/profile"
)

func gzipped(t *testing.T, body func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := hostile.Gzip(&b, body); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func pprofWithUnknown(n int64) func(io.Writer) error {
	return func(w io.Writer) error { return hostile.PprofUnknownField(w, n) }
}

// A pprof profile gzipped twice reads under the size limit, which bounds
// the inner layer too; a third layer is refused, as is what is not
// protobuf after all.
func TestPprofNestedGzip(t *testing.T) {
	twice := gzipped(t, func(w io.Writer) error {
		_, err := w.Write(gzipped(t, pprofWithUnknown(1<<20)))
		return err
	})
	thrice := gzipped(t, func(w io.Writer) error {
		_, err := w.Write(twice)
		return err
	})
	for _, tc := range []struct {
		name, from string
		data       []byte
		limit      int64
		want       string // error prefix; "" reads one sample
	}{
		{"twice", "pprof", twice, 0, ""},
		{"twice, sniffed", "", twice, 0, "in.pb.gz: unknown profile format"},
		{"twice, inner over the limit", "pprof", twice, 1 << 19, "in.pb.gz: decompressed input exceeds the size limit (524288 bytes)"},
		{"thrice", "pprof", thrice, 0, "in.pb.gz: gzip inside gzip inside gzip: a profile is compressed at most twice"},
		{"inner not gzip", "pprof", append([]byte{0x1f, 0x8b}, "not gzip at all"...), 0, "in.pb.gz: gzip: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Read(bytes.NewReader(tc.data), "in.pb.gz", Options{From: tc.from, MaxDecompressed: tc.limit})
			if tc.want != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("error %v, want prefix %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Profile.Sample); n != 1 {
				t.Fatalf("%d samples, want 1", n)
			}
		})
	}
}

// Fields pprof does not read are skipped unread; a string longer than
// maxNameBytes is cut with a warning; a field too large to hold is
// refused; a stream cut short is an error at the field it cuts.
func TestPprofStreamedFields(t *testing.T) {
	var base bytes.Buffer
	if err := hostile.Pprof(&base, 7); err != nil {
		t.Fatal(err)
	}
	field := func(num int, size uint64) []byte {
		return binary.AppendUvarint(binary.AppendUvarint(nil, uint64(num)<<3|2), size)
	}
	long := strings.Repeat("é", maxNameBytes/2+10) // 2-byte runes: the cut must not split one
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		Function:   []*profile.Function{{ID: 1, Name: long}},
	}
	p.Location = []*profile.Location{{ID: 1, Line: []profile.Line{{Function: p.Function[0]}}}}
	p.Sample = []*profile.Sample{{Location: p.Location, Value: []int64{1}}}
	var longName bytes.Buffer
	if err := p.WriteUncompressed(&longName); err != nil {
		t.Fatal(err)
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		data []byte
		want string // error prefix; "" reads
	}{
		{"unknown fields before and after", cat(field(99, 3), []byte("abc"), base.Bytes(), field(0, 2), []byte("xy"), binary.AppendUvarint(nil, 16<<3), []byte{5}), ""},
		{"long string", longName.Bytes(), ""},
		{"sample too large", cat(base.Bytes(), field(2, pprofio.MaxField+1)), "p.pb: byte 108: field 2 (sample) is 33554433 bytes, more than the limit of 33554432 for one"},
		{"cut off in a field", cat(base.Bytes(), field(4, 10), []byte("abc")), "p.pb: byte 108: not a valid pprof profile: field 4 is cut off by the end of the input"},
		{"cut off in an unknown field", cat(base.Bytes(), field(40, 1<<40)), "p.pb: byte 108: not a valid pprof profile: field 40 is cut off by the end of the input"},
		{"bad wire type", cat(base.Bytes(), []byte{2<<3 | 3}), "p.pb: byte 108: not a valid pprof profile: field 2 has wire type 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Read(bytes.NewReader(tc.data), "p.pb", Options{From: "pprof"})
			if tc.want != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("error %v, want prefix %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			name := res.Profile.Sample[0].Location[0].Line[0].Function.Name
			if tc.name != "long string" {
				if name != "work" || res.Profile.Sample[0].Value[0] != 7 || len(res.Warnings) > 0 {
					t.Fatalf("read %s = %d, warnings %q", name, res.Profile.Sample[0].Value[0], res.Warnings)
				}
				return
			}
			if want := long[:maxNameBytes]; name != want {
				t.Fatalf("the long name read as %d bytes, want its first %d", len(name), len(want))
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "1 strings of the string table are longer than 1048576 bytes") {
				t.Fatalf("warnings %q", res.Warnings)
			}
		})
	}
}

// Legacy formats (text, gperftools' binary CPU profiles) still reach
// profile.ParseData whole.
func TestPprofLegacyStillRead(t *testing.T) {
	text := "--- contention:\ncycles/second=3000000000\n100 10 @ 0x1 0x2\n"
	res, err := Read(strings.NewReader(text), "legacy.txt", Options{From: "pprof"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Profile.Sample) != 1 {
		t.Fatalf("%d samples, want 1", len(res.Profile.Sample))
	}
	if _, err := Read(bytes.NewReader(make([]byte, 64)), "zeros.prof", Options{From: "pprof"}); err == nil ||
		errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "not a valid pprof profile") {
		t.Fatalf("zeros: error %v, want pprof's", err)
	}
}

// What follows a gzip stream and is not another member is trailing
// garbage, not a truncated stream; members one after another are one
// stream; a stream cut short is still truncated.
func TestGzipTrailingData(t *testing.T) {
	member := func(s string) []byte {
		return gzipped(t, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
	}
	stacks := member("main;work 3\nmain;idle 1\n")
	whole := len("main;work 3\nmain;idle 1\n")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		data []byte
		want string // error; "" reads 4 samples
	}{
		{"one member", stacks, ""},
		{"two members", cat(member("main;work 3\n"), member(""), member("main;idle 1\n")), ""},
		{"a short tail", cat(stacks, []byte("junk")), fmt.Sprintf("in.gz: gzip: the stream ends after %d decompressed bytes, and what follows it is not gzip (trailing garbage)", whole)},
		{"a long tail", cat(stacks, bytes.Repeat([]byte("<html>"), 100)), fmt.Sprintf("in.gz: gzip: the stream ends after %d decompressed bytes, and what follows it is not gzip (trailing garbage)", whole)},
		{"zeros", cat(stacks, make([]byte, 512)), fmt.Sprintf("in.gz: gzip: the stream ends after %d decompressed bytes, and what follows it is not gzip (trailing garbage)", whole)},
		{"one byte", cat(stacks, []byte{0x1f}), fmt.Sprintf("in.gz: gzip: the stream ends after %d decompressed bytes, and what follows it is not gzip (trailing garbage)", whole)},
		{"cut short", stacks[:len(stacks)-5], "in.gz: gzip: truncated gzip stream after "},
		{"a second member cut short", cat(stacks, member("main;work 1\n")[:8]), fmt.Sprintf("in.gz: gzip: truncated gzip stream after %d decompressed bytes", whole)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Read(bytes.NewReader(tc.data), "in.gz", Options{From: "collapsed"})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && len(res.Profile.Sample) != 2:
				t.Fatalf("%d samples, want 2", len(res.Profile.Sample))
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Fatalf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}
