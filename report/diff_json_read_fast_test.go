package report

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// fastCases are inputs on which the fast path must decode what
// encoding/json decodes (fast: true) or give up (fast: false).
var fastCases = []struct {
	name string
	in   string
	fast bool
}{
	{"minimal", `{"schema":"ctdiff.diff/v1","unit":"nanoseconds"}`, true},
	{"white space", " \t\r\n{ \"schema\" : \"ctdiff.diff/v1\" , \"unit\" :\"ns\" , \"alpha\" : 0.05 } \n", true},
	{"escapes", `{"unit":"a\"b\\c\/d\b\f\n\r\t\u00e9\u20ac\ud83d\ude00\u0000"}`, true},
	{"UTF-8", `{"unit":"é€😀 ok","warnings":["naïve","日本"]}`, true},
	{"escaped key", `{"\u0075nit":"ns"}`, true},
	{"unknown fields", `{"later":{"a":[1,-2.5e+3,true,false,null,"x",{"b":[]}],"c":{}},"unit":"ns"}`, true},
	{"nulls", `{"unit":null,"causes":null,"benchmark":null,"overlap":null,"alpha":null,"critical_graph":[{"stats":null,"cause":null}]}`, true},
	{"pointers and floats", `{"overlap":{"noise_floor_percent":1.5e-3,"percent":-0,"pairs":3},"benchmark":{"p":0.01,"base":{"ci_low":null}}}`, true},
	// tree_nodes is an int: 2³¹ − 1 on 32-bit platforms.
	{"int limits", `{"min_delta":-9223372036854775808,"tree_nodes":` + strconv.Itoa(math.MaxInt) + `,"base":{"totals":[0,-0,1,12345678901234]}}`, true},
	{"empty lists", `{"causes":[],"warnings":[],"critical_graph":[{}]}`, true},
	{"embedded struct", `{"go_runtime":{"allocators":[{"function":"runtime.mallocgc","base":1,"new":2,"delta":1}],"background_gc":{"base":5}}}`, true},
	{"many elements", `{"base":{"totals":[` + strings.Repeat("7,", 200) + `7]}}`, true},
	{"top-level null", `null`, true},

	{"duplicate key", `{"unit":"a","unit":"b"}`, false},
	{"duplicate list", `{"causes":[{"kind":"added","base":1}],"causes":[{"kind":"regressed"}]}`, false},
	{"key in other case", `{"Unit":"ns"}`, false},
	{"key folding to a field", `{"ſchema":"ctdiff.diff/v1"}`, false},
	{"invalid UTF-8", "{\"unit\":\"\xff\"}", false},
	{"lone surrogate", `{"unit":"\ud83d"}`, false},
	{"reversed surrogates", `{"unit":"\ude00\ud83d"}`, false},
	{"bad escape", `{"unit":"\x"}`, false},
	{"control character", "{\"unit\":\"a\tb\"}", false},
	{"fraction into an int", `{"min_delta":1.5}`, false},
	{"exponent into an int", `{"min_delta":1e3}`, false},
	{"int overflow", `{"min_delta":9223372036854775808}`, false},
	{"int underflow", `{"min_delta":-9223372036854775809}`, false},
	{"float overflow", `{"alpha":1e400}`, false},
	{"string into an int", `{"min_delta":"5"}`, false},
	{"number into a string", `{"unit":5}`, false},
	{"leading zero", `{"alpha":01}`, false},
	{"trailing comma", `{"unit":"ns",}`, false},
	{"trailing data", `{"unit":"ns"} x`, false},
	{"truncated", `{"unit":"ns"`, false},
	{"not an object", `[1]`, false},
	{"bool into a string", `{"unit":true}`, false},
	{"literal prefix", `{"cause":tru}`, false},
	{"deep unknown value", `{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, false},
}

// The fast path decodes what encoding/json decodes, and gives up where it
// would differ or fail.
func TestFastReadMatchesEncodingJSON(t *testing.T) {
	for _, tc := range fastCases {
		t.Run(tc.name, func(t *testing.T) {
			var fast, slow diffJSON
			ferr := fastUnmarshal([]byte(tc.in), &fast)
			serr := json.Unmarshal([]byte(tc.in), &slow)
			if (ferr == nil) != tc.fast {
				t.Fatalf("fast path: %v, want fast %v (encoding/json: %v)", ferr, tc.fast, serr)
			}
			if ferr != nil && ferr != errSlowPath {
				t.Fatalf("fast path error %v, want errSlowPath", ferr)
			}
			if ferr == nil && (serr != nil || !reflect.DeepEqual(fast, slow)) {
				t.Errorf("fast path decoded\n%+v\nencoding/json (%v)\n%+v", fast, serr, slow)
			}
		})
	}
}

// Every result ctdiff writes takes the fast path, and equal strings share
// their bytes.
func TestFastReadGoldens(t *testing.T) {
	files, _ := filepath.Glob("testdata/diff-*.json.golden")
	if len(files) == 0 {
		t.Fatal("no diff JSON goldens in testdata")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fast, slow diffJSON
		if err := fastUnmarshal(data, &fast); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: the fast path decodes another result", f)
		}
	}
	var in diffJSON
	if err := fastUnmarshal([]byte(`{"warnings":["same","same"]}`), &in); err != nil {
		t.Fatal(err)
	}
	if unsafe.StringData(in.Warnings[0]) != unsafe.StringData(in.Warnings[1]) {
		t.Error("equal strings are not interned")
	}
}

// A file is read into a buffer of its size (and the byte that sees its
// end); a reader of unknown size, read whole; either stops past the limit.
func TestReadSized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	content := strings.Repeat("x", 100_000)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b, err := readSized(f, 1<<20)
	if err != nil || string(b) != content[10:] || cap(b) != len(content)-10+1 {
		t.Errorf("file: %d bytes in a buffer of %d, %v: want %d in %d", len(b), cap(b), err, len(content)-10, len(content)-10+1)
	}
	b, err = readSized(io.MultiReader(strings.NewReader(content)), 1<<20)
	if err != nil || string(b) != content {
		t.Errorf("reader: %d bytes, %v", len(b), err)
	}
	for _, r := range []io.Reader{strings.NewReader(content), io.MultiReader(strings.NewReader(content))} {
		if b, err := readSized(r, 1000); err != nil || len(b) != 1001 {
			t.Errorf("%T over the limit: %d bytes, %v: want 1001", r, len(b), err)
		}
	}
}

// FuzzFastRead: whatever the fast path decodes, encoding/json decodes the
// same.
func FuzzFastRead(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.in))
	}
	files, _ := filepath.Glob("testdata/diff-*.json.golden")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow diffJSON
		ferr := fastUnmarshal(data, &fast)
		if ferr != nil {
			if ferr != errSlowPath {
				t.Fatalf("fast path error %v", ferr)
			}
			return
		}
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path decoded what encoding/json refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("decoded differently: %q\nfast %+v\nslow %+v", data, fast, slow)
		}
	})
}
