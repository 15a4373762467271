package convert

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

// fuzzSeedMax bounds a seed: larger inputs make each fuzzing run slow
// without exploring more of a parser.
const fuzzSeedMax = 64 << 10

// addReadSeeds adds every input fixture of this package, the example
// profiles and, when the corpus is present, its files (the first 16 KiB of
// the decompressed content of large ones). Nothing requires the corpus.
func addReadSeeds(f *testing.F) {
	var files []string
	filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "fuzz":
			return filepath.SkipDir
		case !d.IsDir() && !strings.HasSuffix(p, ".golden") && !strings.HasSuffix(p, ".md"):
			files = append(files, p)
		}
		return nil
	})
	examples, _ := filepath.Glob(filepath.Join("..", "testdata", "example", "*", "*.pb.gz"))
	files = append(files, examples...)
	if d := corpus.Dir(); d != "" {
		found, _ := filepath.Glob(filepath.Join(d, "*", "*"))
		for _, p := range found {
			if filepath.Base(filepath.Dir(p)) != "expected" {
				files = append(files, p)
			}
		}
	}
	files = append(files, corpus.NextFiles(f)...)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > fuzzSeedMax {
			data = fuzzHead(data)
		}
		f.Add(data)
	}
	if len(files) == 0 {
		f.Fatal("no seeds in testdata")
	}
}

// fuzzHead returns the first 16 KiB of a file's decompressed content.
func fuzzHead(data []byte) []byte {
	r := io.Reader(bytes.NewReader(data))
	if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
		r = zr
	}
	head, _ := io.ReadAll(io.LimitReader(r, 16<<10))
	return head
}

// FuzzRead fuzzes what the CLI does with a file and no --from: gzip
// detection, every sniffer, the reader sniffing picks, and the checks on
// its output. A sniffed format must read the same when forced, and the
// same with Options.Stacks (CheckStacks).
func FuzzRead(f *testing.F) {
	addReadSeeds(f)
	f.Add([]byte{})
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		head := data[:min(len(data), sniffSize)]
		for _, format := range sniffOrder() {
			format.Sniff(head) // must not panic on any bytes
		}
		opts := Options{MaxDecompressed: 1 << 20}
		res, err := Read(bytes.NewReader(data), "fuzz", opts)
		CheckRead(t, "fuzz", res, err)
		CheckStacks(t, "fuzz", data, opts)
		if err != nil {
			return
		}
		opts.From = res.Format
		forced, err := Read(bytes.NewReader(data), "fuzz", opts)
		if err != nil {
			t.Fatalf("sniffed as %s, but --from %s fails: %v", res.Format, res.Format, err)
		}
		if len(forced.Profile.Sample) != len(res.Profile.Sample) || !slices.Equal(SampleSums(forced.Profile), SampleSums(res.Profile)) {
			t.Fatalf("sniffed and forced %s reads differ", res.Format)
		}
	})
}

// FuzzETL: binary ETW is only recognised, never read, so every input is
// refused, with the export advice when it is not simply empty.
func FuzzETL(f *testing.F) {
	f.Add(etlHeader())
	if d := corpus.Dir(); d != "" {
		if data, err := os.ReadFile(filepath.Join(d, "etw", "perfview-net.4.5.2.x64.etl.zip")); err == nil {
			f.Add(data[:min(len(data), fuzzSeedMax)])
		}
	}
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sniffETL(data[:min(len(data), sniffSize)])
		res, err := Read(bytes.NewReader(data), "fuzz.etl", Options{From: "etl", MaxDecompressed: 1 << 20})
		if err == nil {
			t.Fatalf("binary ETL read as %d samples", len(res.Profile.Sample))
		}
		CheckRead(t, "fuzz.etl", res, err)
		if !errors.Is(err, errBinaryETL) && !strings.Contains(err.Error(), "empty input") &&
			!strings.Contains(err.Error(), "gzip") && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("unexpected error: %v", err)
		}
	})
}

// etlHeader is the start of a raw .etl trace as sniffETL recognises it.
func etlHeader() []byte {
	b := make([]byte, 128)
	b[0], b[1] = 0x00, 0x00
	b[2] = 0x01 // buffer size 64 KiB
	b[74], b[75] = 0x14, 0xC0
	return b
}
