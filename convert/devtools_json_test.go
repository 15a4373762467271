package convert

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONStreamValues checks value extents across buffer refills: a
// 16-byte bufio buffer makes every value straddle several refills.
func TestJSONStreamValues(t *testing.T) {
	in := ` [ {"a": "x]}\"\\", "b": [1, {"c": []}]} , "s\"q" , -1.5e3, true, null, [], {} ,]`
	s := newJSONStream(bufio.NewReaderSize(strings.NewReader(in), 16))
	it, err := s.array("test")
	if err != nil {
		t.Fatal(err)
	}
	// Values copied across refills lose the white space between tokens.
	want := []string{`{"a":"x]}\"\\","b":[1,{"c":[]}]}`, `"s\"q"`, `-1.5e3`, `true`, `null`, `[]`, `{}`}
	var got []string
	for {
		more, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		v, err := s.value(true)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(v))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("values\n%q\nwant\n%q", got, want)
	}
	if it.Unclosed {
		t.Error("a closed array reported unclosed")
	}
}

// A kept value holds at most MaxNameBytes of a string, cut where no
// escape or UTF-8 sequence is split, none of the white space between its
// tokens, and no number longer than maxJSONScalar.
func TestJSONStreamHugeTokens(t *testing.T) {
	for _, tail := range []string{"", `\u00e9`, `\"`, "é", `\\`} {
		for shift := range 6 {
			name := strings.Repeat("a", maxNameBytes-shift) + strings.Repeat(tail, 4) + strings.Repeat("b", 100)
			in := `{"f":"` + name + `",` + strings.Repeat(" \n", 100_000) + `"g":1}`
			s := newJSONStream(bufio.NewReaderSize(strings.NewReader(in), 4096))
			v, err := s.value(true)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				F string `json:"f"`
				G int    `json:"g"`
			}
			if err := json.Unmarshal(v, &got); err != nil {
				t.Fatalf("tail %q, shift %d: the cut value is not JSON: %v", tail, shift, err)
			}
			var whole struct{ F string }
			json.Unmarshal([]byte(in), &whole)
			if !strings.HasPrefix(whole.F, got.F) || len(got.F) < maxNameBytes-8 || len(v) > maxNameBytes+20 || got.G != 1 || s.cut != 1 {
				t.Fatalf("tail %q, shift %d: kept %d bytes of the name (%d of the value), g=%d, cut %d", tail, shift, len(got.F), len(v), got.G, s.cut)
			}
		}
	}
	in := `{"n":` + strings.Repeat("9", 5000) + `}`
	s := newJSONStream(bufio.NewReaderSize(strings.NewReader(in), 16))
	if _, err := s.value(true); err == nil || !strings.HasPrefix(err.Error(), "byte 1029: expected a number or literal, found more than 1024 bytes") {
		t.Fatalf("a 5,000-digit number: %v", err)
	}
}

func TestJSONStreamNumbers(t *testing.T) {
	s := newJSONStream(bufio.NewReaderSize(strings.NewReader(`[1, -2, 3.25, 1e3 ,0]`), 16))
	got, err := s.numbers(nil, 1000, "deltas")
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1000, -2000, 3250, 1000000, 0}; !slicesEqual(got, want) {
		t.Errorf("numbers %v, want %v", got, want)
	}
	for in, want := range map[string]string{
		`[1, "2"]`:              `byte 4: expected a number within ±2^60 in deltas, found "\"2\""`,
		`[1, 2`:                 `the deltas array is cut off`,
		`[1 2]`:                 `byte 3: expected ',' or ']' after array element 0, found '2'`,
		`{"a":1}`:               `byte 0: expected '[' starting deltas, found '{'`,
		`[9e18]`:                `found "9e18"`,
		`[nan]`:                 `found "nan"`,
		`[1,,2]`:                `byte 3: expected a value, found ','`,
		`[2305843009213693952]`: `found "2305843009213693952"`,
	} {
		s := newJSONStream(bufio.NewReader(strings.NewReader(in)))
		_, err := s.numbers(nil, 1000, "deltas")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("numbers(%s): error %v, want %q", in, err, want)
		}
	}
}

func TestParseNumberList(t *testing.T) {
	got, err := parseNumberList([]byte(" [ 4 , 5,6 ] "), 1)
	if err != nil || !slicesEqual(got, []int64{4, 5, 6}) {
		t.Errorf("got %v, %v", got, err)
	}
	if got, err := parseNumberList([]byte("[]"), 1); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	if got, err := parseNumberList([]byte("null"), 1); err != nil || got != nil {
		t.Errorf("null: %v, %v", got, err)
	}
}

// The string scan searches each byte of the input a bounded number of
// times whatever its escapes: every escape form, dense, in a value kept
// (copied, its string cut) and in one skipped, and a string of escapes
// between ordinary ones. A scan that searched the rest of the buffered
// window again after each escape searched some 16,000 bytes per input
// byte; two searches cover each byte of a string, and a kept value's
// first window is scanned twice.
func TestJSONStreamEscapesLinear(t *testing.T) {
	const n = 1 << 20 // bytes of escapes: 16 windows of 64 KB
	for _, esc := range []string{`\n`, `\u0041`, `\"`, `\\`, `\/`, `\t`, `\b`, `\ud83d\ude00`, `ab\"c\\d\u00e9é`} {
		body := strings.Repeat(esc, n/len(esc))
		in := `{"ignored":"` + body + `","name":"f","n":1}`
		for _, keep := range []bool{false, true} {
			s := newJSONStream(bufio.NewReaderSize(strings.NewReader(in), 64<<10))
			v, err := s.value(keep)
			if err != nil {
				t.Fatalf("%s, keep %v: %v", esc, keep, err)
			}
			if s.searched > 3*int64(len(in)) {
				t.Errorf("%s, keep %v: searched %d bytes for %d bytes of input (%.0f per byte)",
					esc, keep, s.searched, len(in), float64(s.searched)/float64(len(in)))
			}
			if !keep {
				continue
			}
			var got struct {
				Name string
				N    int
			}
			if err := json.Unmarshal(v, &got); err != nil || got.Name != "f" || got.N != 1 {
				t.Errorf("%s: the kept value decodes to %+v, %v", esc, got, err)
			}
		}
	}
}
