package pprofio

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/google/pprof/profile"
)

// The differential suite: each reader and writer of the package against
// google/pprof's own, on random profiles (randomProfile), on those
// profiles' bytes with one byte changed, and on real profiles (the
// repository's example profiles and the corpus's pprof directory).

// randomProfile is a valid profile of r's choosing: mappings, functions,
// locations with inlined lines (or none), samples with string and numeric
// labels (units or not, several values per key), comments and the
// scalars. Ids are numbered 1, 2, 3... or sparsely, as writers do both.
func randomProfile(r *rand.Rand) *profile.Profile {
	str := func() string { return fmt.Sprintf("s%d", r.IntN(20)) }
	id := func(i int) uint64 {
		if r.IntN(2) == 0 {
			return uint64(i + 1)
		}
		return uint64(i*7 + 1 + r.IntN(5))
	}
	p := &profile.Profile{TimeNanos: r.Int64N(1 << 40), DurationNanos: r.Int64N(1 << 30), Period: r.Int64N(1 << 20)}
	types := 1 + r.IntN(3)
	for i := range types {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: fmt.Sprintf("type%d", i), Unit: str()})
	}
	if r.IntN(2) == 0 {
		p.PeriodType = &profile.ValueType{Type: str(), Unit: str()}
		p.DefaultSampleType = p.SampleType[r.IntN(types)].Type
	}
	for range r.IntN(3) {
		p.Comments = append(p.Comments, str())
	}
	step := uint64(1) + uint64(r.IntN(3))
	for i := range r.IntN(3) {
		p.Mapping = append(p.Mapping, &profile.Mapping{ID: step*uint64(i) + 1, Start: uint64(i) << 20, Limit: uint64(i+1) << 20,
			File: str(), BuildID: str(), HasFunctions: r.IntN(2) == 0})
	}
	for i := range 1 + r.IntN(8) {
		p.Function = append(p.Function, &profile.Function{ID: id(i), Name: str(), SystemName: str(), Filename: str(), StartLine: r.Int64N(100)})
	}
	for i := range 1 + r.IntN(12) {
		l := &profile.Location{ID: id(i), Address: r.Uint64N(1 << 30), IsFolded: r.IntN(4) == 0}
		if len(p.Mapping) > 0 && r.IntN(2) == 0 {
			l.Mapping = p.Mapping[r.IntN(len(p.Mapping))]
		}
		for range r.IntN(3) {
			l.Line = append(l.Line, profile.Line{Function: p.Function[r.IntN(len(p.Function))], Line: r.Int64N(500), Column: r.Int64N(3)})
		}
		p.Location = append(p.Location, l)
	}
	for range r.IntN(40) {
		s := &profile.Sample{}
		for range r.IntN(6) {
			s.Location = append(s.Location, p.Location[r.IntN(len(p.Location))])
		}
		for range types {
			s.Value = append(s.Value, r.Int64N(1000))
		}
		if r.IntN(2) == 0 {
			s.Label = map[string][]string{}
			for range 1 + r.IntN(3) {
				k := "k" + str()
				s.Label[k] = append(s.Label[k], str())
			}
		}
		if r.IntN(2) == 0 {
			s.NumLabel, s.NumUnit = map[string][]int64{}, map[string][]string{}
			for range 1 + r.IntN(3) {
				k := "n" + str()
				if _, dup := s.Label[k]; dup {
					continue
				}
				s.NumLabel[k] = append(s.NumLabel[k], 1+r.Int64N(1<<40))
				if r.IntN(2) == 0 {
					s.NumUnit[k] = append(s.NumUnit[k], "u"+str())
				}
			}
			for k, u := range s.NumUnit {
				for len(u) < len(s.NumLabel[k]) {
					u = append(u, "")
				}
				s.NumUnit[k] = u
			}
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// pprofBytes is p as pprof writes it, uncompressed.
func pprofBytes(t *testing.T, p *profile.Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameProfile fails unless got and want are the same profile: pprof
// writes the same bytes of them.
func sameProfile(t *testing.T, what string, got, want *profile.Profile) {
	t.Helper()
	if g, w := pprofBytes(t, got), pprofBytes(t, want); !bytes.Equal(g, w) {
		t.Fatalf("%s: differs from profile.Parse's:\ngot:\n%v\nwant:\n%v", what, got, want)
	}
}

// checkAgainstPprof compares the readers and writers with pprof's on
// data, an uncompressed profile.proto: Decode takes what
// profile.ParseUncompressed takes (or refuses it, leaving it to pprof),
// and decodes it to the same profile; ReadRewrite writes what Write
// writes of pprof's profile; Write writes what profile.Write writes.
func checkAgainstPprof(t *testing.T, data []byte, mustTake bool) {
	t.Helper()
	want, err := profile.ParseUncompressed(data)
	if err == nil {
		err = want.CheckValid()
	}
	got, ok := Decode(data, nil)
	switch {
	case ok && err != nil && got.CheckValid() == nil:
		t.Fatalf("Decode took a profile pprof refuses: %v", err)
	case err != nil:
		return
	case !ok && mustTake:
		t.Fatal("Decode refused a profile pprof reads")
	case ok:
		sameProfile(t, "Decode", got, want)
	}
	var mine, theirs bytes.Buffer
	if err := Write(&mine, want); err != nil {
		t.Fatal(err)
	}
	if err := want.Write(&theirs); err != nil {
		t.Fatal(err)
	}
	if g, w := gunzip(t, mine.Bytes()), gunzip(t, theirs.Bytes()); !bytes.Equal(g, w) {
		t.Fatalf("Write: %d bytes differ from profile.Write's %d", len(g), len(w))
	}
	if len(want.Sample) == 0 {
		return
	}
	rw, _, err := ReadRewrite(bytes.NewReader(data), profile.ParseData)
	if err != nil {
		if mustTake {
			t.Fatalf("ReadRewrite: %v", err)
		}
		return
	}
	mine.Reset()
	if err := rw.Write(&mine); err != nil {
		t.Fatal(err)
	}
	if g, w := gunzip(t, mine.Bytes()), gunzip(t, theirs.Bytes()); !bytes.Equal(g, w) {
		t.Fatalf("ReadRewrite: %d bytes written differ from profile.Write's %d", len(g), len(w))
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDifferentialRandom(t *testing.T) {
	for seed := range uint64(150) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			data := pprofBytes(t, randomProfile(r))
			checkAgainstPprof(t, data, true)
			// One byte changed: whatever pprof makes of it.
			for range 20 {
				bad := bytes.Clone(data)
				bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
				checkAgainstPprof(t, bad, false)
			}
		})
	}
}

func TestDifferentialProfiles(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/example/*/*.pb.gz")
	if len(paths) == 0 {
		t.Fatal("no profiles in ../../testdata/example")
	}
	paths = append(paths, corpus.Glob(t, "pprof/*")...)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data := raw
			if IsGzip(raw[:2]) {
				data = gunzip(t, raw)
			}
			if _, err := profile.ParseUncompressed(data); err != nil {
				// A legacy format, which only profile.ParseData reads:
				// what it reads, Write writes as pprof does.
				p, err := profile.ParseData(data)
				if err != nil {
					t.Fatal(err)
				}
				data = pprofBytes(t, p)
			}
			checkAgainstPprof(t, data, true)
		})
	}
}

func FuzzDifferential(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		var b bytes.Buffer
		if err := randomProfile(r).WriteUncompressed(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstPprof(t, data, false)
	})
}
