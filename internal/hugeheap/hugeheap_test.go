package hugeheap

import (
	"slices"
	"testing"
	"unsafe"
)

func TestHugePages(t *testing.T) {
	const a = 64 * hugePage // an aligned address
	for _, tc := range []struct {
		name      string
		r         span
		wantStart uintptr
		wantN     uintptr
	}{
		{"aligned whole pages", span{a, a + 2*hugePage}, a, 2 * hugePage},
		{"unaligned start", span{a + 1, a + 3*hugePage}, a + hugePage, 2 * hugePage},
		{"unaligned end", span{a, a + 2*hugePage - 1}, a, hugePage},
		{"less than a page", span{a + 1, a + hugePage + 1}, 0, 0},
		{"a page across two", span{a + 4096, a + hugePage + 4096}, 0, 0},
		{"empty", span{a, a}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, n := hugePages(tc.r)
			if start != tc.wantStart || n != tc.wantN {
				t.Fatalf("hugePages(%#x-%#x) = %d bytes at %#x, want %d at %#x", tc.r.start, tc.r.end, n, start, tc.wantN, tc.wantStart)
			}
		})
	}
}

func TestRuns(t *testing.T) {
	buf := make([]byte, 100)
	at := func(i, j int) []byte { return buf[i:j] }
	base := uintptr(unsafe.Pointer(&buf[0]))
	sp := func(i, j int) span { return span{base + uintptr(i), base + uintptr(j)} }
	for _, tc := range []struct {
		name   string
		chunks [][]byte
		want   []span
	}{
		{"adjacent joined", [][]byte{at(0, 10), at(10, 20)}, []span{sp(0, 20)}},
		{"out of order joined", [][]byte{at(20, 30), at(0, 10), at(10, 20)}, []span{sp(0, 30)}},
		{"a gap kept", [][]byte{at(0, 10), at(11, 20)}, []span{sp(0, 10), sp(11, 20)}},
		{"empty chunks skipped", [][]byte{at(5, 5), at(30, 40)}, []span{sp(30, 40)}},
		{"none", nil, []span{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := runs(tc.chunks); !slices.Equal(got, tc.want) {
				t.Fatalf("runs = %v, want %v", got, tc.want)
			}
		})
	}
}
