package hashindex

import (
	"fmt"
	"runtime"
	"testing"
)

// TestIndex adds ids under hashes that collide in every way the index
// tells apart (the same hash, the same slot with another tag) and finds
// each by its key, as a map would.
func TestIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		hash func(k int) uint64
	}{
		{"distinct", func(k int) uint64 { return uint64(k) * 0x9e3779b97f4a7c15 }},
		{"one hash", func(int) uint64 { return 42 << 32 }},
		{"one slot, tags differ", func(k int) uint64 { return uint64(k) << 40 }},
		{"few hashes", func(k int) uint64 { return uint64(k%5) << 33 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x Index
			keys := []string{}
			want := map[string]int32{}
			for k := range 300 {
				key := fmt.Sprint("k", k)
				eq := func(id int32) bool { return keys[id] == key }
				if _, ok := x.Find(tc.hash(k), eq); ok {
					t.Fatalf("%s found before it was added", key)
				}
				id := int32(len(keys))
				keys = append(keys, key)
				x.Add(tc.hash(k), id)
				want[key] = id
			}
			if x.Len() != len(want) {
				t.Errorf("Len %d, want %d", x.Len(), len(want))
			}
			for k := range 300 {
				key := fmt.Sprint("k", k)
				got, ok := x.Find(tc.hash(k), func(id int32) bool { return keys[id] == key })
				if !ok || got != want[key] {
					t.Errorf("Find(%s) = %d, %v; want %d", key, got, ok, want[key])
				}
			}
			if _, ok := x.Find(tc.hash(7), func(int32) bool { return false }); ok {
				t.Error("found an id eq refused")
			}
		})
	}
}

func TestTable(t *testing.T) {
	type frame struct {
		name, file string
		line       int64
	}
	var tb Table[frame]
	in := []frame{{"a", "x", 1}, {"b", "x", 1}, {"a", "x", 2}, {"a", "x", 1}, {"", "", 0}, {"b", "x", 1}}
	wantID := []int32{0, 1, 2, 0, 3, 1}
	wantAdded := []bool{true, true, true, false, true, false}
	for i, f := range in {
		id, added := tb.Intern(f)
		if id != wantID[i] || added != wantAdded[i] {
			t.Errorf("Intern(%v) = %d, %v; want %d, %v", f, id, added, wantID[i], wantAdded[i])
		}
	}
	if tb.Len() != 4 || tb.Values[2] != in[2] {
		t.Errorf("values %v", tb.Values)
	}
	if id, ok := tb.Find(frame{"a", "x", 2}); !ok || id != 2 {
		t.Errorf("Find = %d, %v", id, ok)
	}
	if _, ok := tb.Find(frame{"a", "y", 2}); ok {
		t.Error("found a value never added")
	}
	var empty Table[frame]
	if _, ok := empty.Find(frame{}); ok {
		t.Error("an empty table found a value")
	}
}

// TestReserve: an index made room for n ids does not grow while they are
// added.
func TestReserve(t *testing.T) {
	var x Index
	x.Reserve(1000)
	size := len(x.slots)
	for i := range 1000 {
		x.Add(uint64(i)*0x9e3779b97f4a7c15, int32(i))
	}
	if len(x.slots) != size {
		t.Errorf("grew from %d to %d slots", size, len(x.slots))
	}
}

// TestTableMemory: a table of a million 72-byte values takes the values
// and about 16 bytes an id more, where a map keyed by them took some 150.
func TestTableMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("interns a million values")
	}
	names := make([]string, 1_000_000)
	for i := range names {
		names[i] = fmt.Sprint("f", i)
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var tb Table[bigFrame]
	tb.Values = make([]bigFrame, 0, len(names))
	for _, n := range names {
		tb.Intern(newBigFrame(n))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(&tb)
	runtime.KeepAlive(names)
	per := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(names))
	t.Logf("%.1f bytes a value", per)
	if per > 72+24 {
		t.Errorf("%.1f bytes a 72-byte value: more than 24 beside it", per)
	}
}

// bigFrame is a 72-byte value, as a frame of convert's.
type bigFrame struct {
	name, sys, file    string
	line, col, startAt int64
}

func newBigFrame(name string) bigFrame {
	return bigFrame{name: name, sys: name, file: "a.js", line: 1, col: 2, startAt: 1}
}

func BenchmarkIntern(b *testing.B) {
	names := make([]string, 100_000)
	for i := range names {
		names[i] = fmt.Sprint("function", i)
	}
	b.Run("Table", func(b *testing.B) {
		for b.Loop() {
			var tb Table[bigFrame]
			for _, n := range names {
				tb.Intern(newBigFrame(n))
			}
			for _, n := range names {
				tb.Intern(newBigFrame(n))
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			m := map[bigFrame]int32{}
			var vals []bigFrame
			for range 2 {
				for _, n := range names {
					f := newBigFrame(n)
					if _, ok := m[f]; !ok {
						m[f] = int32(len(vals))
						vals = append(vals, f)
					}
				}
			}
		}
	})
}
