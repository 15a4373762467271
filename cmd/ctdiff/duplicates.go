package main

import (
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"strings"

	"github.com/ctdiff/ctdiff/convert"
)

// A digest identifies an input by its content: a hash of its bytes as read
// (compressed, if it is) and their count. maphash, seeded once a process,
// hashes several times as fast as SHA-256 (BenchmarkDigest), which matters
// for traces of hundreds of megabytes; two inputs of one size collide by
// chance with a probability of 2⁻⁶⁴ a pair.
type digest struct {
	sum uint64
	n   int64
}

// digestSeed seeds every input's hash, so that digests compare.
var digestSeed = maphash.MakeSeed()

// A digester hashes what an input's reader reads; the zero digester (no
// digest asked for) reads without hashing.
type digester struct {
	sum *digest
}

func newDigester(sum *digest) digester { return digester{sum: sum} }

// read reads one profile from r with convert.Read, hashing every byte of r
// into the digest: those the reader reads and those it leaves (a format
// read to the end of its data, not of the file). A reader that answers
// Stat and ReadAt (countedFile) keeps them: convert reads a gzipped file
// whole through ReadAt, and then reads it to its end through Read, which
// is hashed.
func (d digester) read(r io.Reader, name string, opts convert.Options) (*convert.Result, error) {
	if d.sum == nil {
		return convert.Read(r, name, opts)
	}
	tee := &hashingReader{r: r}
	tee.h.SetSeed(digestSeed)
	var in io.Reader = tee
	if c, ok := r.(countedFile); ok {
		in = countedFile{tee, c.f}
	}
	res, err := convert.Read(in, name, opts)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	*d.sum = digest{sum: tee.h.Sum64(), n: tee.n}
	return res, nil
}

// A hashingReader is io.TeeReader into a hash, counting the bytes.
type hashingReader struct {
	r io.Reader
	h maphash.Hash
	n int64
}

func (t *hashingReader) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	t.h.Write(b[:n])
	t.n += int64(n)
	return n, err
}

// sideNames are the sides as diff's usage names them.
var sideNames = [2]string{"OLD", "NEW"}

// sameFiles refuses a side that names one file twice, under one path or
// two (a directory and a glob, a list and a link): each is one run, and a
// run counted twice makes every difference look more significant than it
// is. arg is the side as given.
func sameFiles(side int, arg string, paths []string) error {
	infos := make([]os.FileInfo, len(paths))
	for i, p := range paths {
		if p == "-" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			continue // the reader says what is wrong with it
		}
		infos[i] = st
		for j := range i {
			if infos[j] == nil || !os.SameFile(infos[j], st) {
				continue
			}
			what := fmt.Sprintf("%s and %s are the same file", paths[j], p)
			if paths[j] == p {
				what = p + " is given twice"
			}
			return duplicateError(side, arg, what, j, i)
		}
	}
	return nil
}

// sameContent refuses a side that holds one profile twice: two inputs
// whose bytes are the same (a copy, or standard input and a file). sums
// are the side's inputs' digests, in path order.
func sameContent(side int, arg string, paths []string, sums []digest) error {
	first := map[digest]int{}
	for i, s := range sums {
		if j, ok := first[s]; ok {
			return duplicateError(side, arg, fmt.Sprintf("%s and %s hold the same profile, byte for byte", paths[j], paths[i]), j, i)
		}
		first[s] = i
	}
	return nil
}

func duplicateError(side int, arg, what string, i, j int) error {
	return fmt.Errorf("%s %s: %s (its inputs %d and %d): a run given twice counts as two runs and overstates the significance of every difference; give each run once",
		sideNames[side], arg, what, i+1, j+1)
}

// sharedProfiles is the warning that the sides hold the same profile (by
// content), or "" when they do not: a profile compared with itself shows
// no change, which is rarely what a comparison of two versions meant.
func sharedProfiles(paths [2][]string, sums [2][]digest) string {
	onBase := map[digest]int{}
	for i, s := range sums[0] {
		if _, ok := onBase[s]; !ok {
			onBase[s] = i
		}
	}
	var pairs []string
	for i, s := range sums[1] {
		j, ok := onBase[s]
		switch {
		case !ok:
		case paths[0][j] == paths[1][i]:
			pairs = append(pairs, paths[1][i])
		default:
			pairs = append(pairs, paths[0][j]+" and "+paths[1][i])
		}
	}
	n := len(pairs)
	const why = "a profile compared with itself shows no change"
	switch {
	case n == 0:
		return ""
	case n == len(sums[0]) && n == len(sums[1]):
		if n == 1 {
			return fmt.Sprintf("inputs: OLD and NEW are the same profile, byte for byte: %s", why)
		}
		return fmt.Sprintf("inputs: OLD and NEW hold the same %d profiles, byte for byte: %s", n, why)
	case n == 1:
		return fmt.Sprintf("inputs: the same profile is on both sides (%s, byte for byte): %s", pairs[0], why)
	}
	more := ""
	if n > 3 {
		more = fmt.Sprintf(" and %d more", n-3)
		pairs = pairs[:3]
	}
	return fmt.Sprintf("inputs: %d profiles are on both sides (%s%s, byte for byte): %s", n, strings.Join(pairs, "; "), more, why)
}
