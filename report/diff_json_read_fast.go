package report

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The fast path of ReadDiffJSON. encoding/json reads a 238 MB result in
// 2.8 s of CPU, a third of it validating the input before decoding it, and
// allocates every string anew (the same function names, hundreds of
// thousands of times). This decoder reads the input once, for the Go
// types of the schema (reflect, no per-field code to keep in step with
// diff_json.go), and interns strings.
//
// It decodes exactly what encoding/json decodes, or gives up: anything it
// does not handle the same way (an error of any kind, a duplicate key, a
// key that matches a field only case-insensitively, invalid UTF-8, a lone
// surrogate, a type with its own UnmarshalJSON, a map, an interface)
// returns errSlowPath, and ReadDiffJSON decodes with encoding/json, which
// names the error or decodes the rare case its own way.
// TestFastReadMatchesEncodingJSON checks both agree.

// errSlowPath sends a document to encoding/json.
var errSlowPath = errors.New("report: not on the fast JSON path")

// maxFastDepth bounds the nesting the fast path follows (encoding/json
// allows 10,000); deeper documents take the slow path.
const maxFastDepth = 1000

// maxInterned bounds the interned strings; past it strings are allocated.
const maxInterned = 1 << 20

type fastDecoder struct {
	data    []byte
	pos     int
	depth   int
	strs    map[string]string
	scratch []byte
	fns     map[reflect.Type]decodeFn
}

type decodeFn func(d *fastDecoder, v reflect.Value) error

// fastUnmarshal decodes data into v (a pointer) as json.Unmarshal does, or
// returns errSlowPath.
func fastUnmarshal(data []byte, v any) error {
	d := &fastDecoder{data: data, strs: map[string]string{}, fns: map[reflect.Type]decodeFn{}}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errSlowPath
	}
	d.ws()
	if err := d.compile(rv.Elem().Type())(d, rv.Elem()); err != nil {
		return err
	}
	if d.ws(); d.pos != len(d.data) {
		return errSlowPath
	}
	return nil
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func slowPath(*fastDecoder, reflect.Value) error { return errSlowPath }

// compile returns the decoder of values of type t.
func (d *fastDecoder) compile(t reflect.Type) decodeFn {
	if fn, ok := d.fns[t]; ok {
		return fn
	}
	// A recursive type finds this indirection while it is compiled.
	var fn decodeFn
	d.fns[t] = func(d *fastDecoder, v reflect.Value) error { return fn(d, v) }
	fn = d.compileType(t)
	d.fns[t] = fn
	return fn
}

func (d *fastDecoder) compileType(t reflect.Type) decodeFn {
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return slowPath
	}
	switch t.Kind() {
	case reflect.String:
		return (*fastDecoder).decodeString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return (*fastDecoder).decodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return (*fastDecoder).decodeUint
	case reflect.Float32, reflect.Float64:
		return (*fastDecoder).decodeFloat
	case reflect.Bool:
		return (*fastDecoder).decodeBool
	case reflect.Pointer:
		return d.compilePointer(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return slowPath // base64 in encoding/json
		}
		return d.compileSlice(t)
	case reflect.Struct:
		return d.compileStruct(t)
	}
	return slowPath
}

func (d *fastDecoder) decodeString(v reflect.Value) error {
	if d.null() {
		return nil
	}
	s, err := d.str()
	if err == nil {
		v.SetString(s)
	}
	return err
}

func (d *fastDecoder) decodeInt(v reflect.Value) error {
	if d.null() {
		return nil
	}
	num, err := d.number()
	if err != nil {
		return err
	}
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	var n uint64
	for _, c := range num {
		if c < '0' || c > '9' || n > (1<<63)/10 {
			return errSlowPath // a fraction, an exponent, or past int64
		}
		n = n*10 + uint64(c-'0')
	}
	var i int64
	switch {
	case neg && n <= 1<<63:
		i = int64(-n) // -1<<63 wraps to itself
	case !neg && n < 1<<63:
		i = int64(n)
	default:
		return errSlowPath
	}
	if v.OverflowInt(i) {
		return errSlowPath
	}
	v.SetInt(i)
	return nil
}

func (d *fastDecoder) decodeUint(v reflect.Value) error {
	if d.null() {
		return nil
	}
	num, err := d.number()
	if err != nil {
		return err
	}
	n, err := strconv.ParseUint(string(num), 10, 64)
	if err != nil || v.OverflowUint(n) {
		return errSlowPath
	}
	v.SetUint(n)
	return nil
}

func (d *fastDecoder) decodeFloat(v reflect.Value) error {
	if d.null() {
		return nil
	}
	num, err := d.number()
	if err != nil {
		return err
	}
	f, err := strconv.ParseFloat(string(num), v.Type().Bits())
	if err != nil || v.OverflowFloat(f) {
		return errSlowPath
	}
	v.SetFloat(f)
	return nil
}

func (d *fastDecoder) decodeBool(v reflect.Value) error {
	switch {
	case d.null():
	case d.literal("true"):
		v.SetBool(true)
	case d.literal("false"):
		v.SetBool(false)
	default:
		return errSlowPath
	}
	return nil
}

func (d *fastDecoder) compilePointer(t reflect.Type) decodeFn {
	elem := d.compile(t.Elem())
	return func(d *fastDecoder, v reflect.Value) error {
		if d.null() {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return elem(d, v.Elem())
	}
}

func (d *fastDecoder) compileSlice(t reflect.Type) decodeFn {
	elem := d.compile(t.Elem())
	return func(d *fastDecoder, v reflect.Value) error {
		if d.null() {
			v.SetZero()
			return nil
		}
		if !v.IsNil() || !d.open('[') {
			return errSlowPath // a value decoded before: a duplicate key
		}
		v.Set(reflect.MakeSlice(t, 0, 4))
		if !d.close(']') {
			for n := 1; ; n++ {
				if n > v.Cap() {
					v.Grow(n - 1)
				}
				v.SetLen(n)
				if err := elem(d, v.Index(n-1)); err != nil {
					return err
				}
				if d.close(']') {
					break
				}
				if !d.comma() {
					return errSlowPath
				}
			}
		}
		d.depth--
		// Doubling leaves up to half the array unused; a large list (the
		// critical graph) is copied once to its size instead.
		if n := v.Len(); v.Cap()-n > n/4 && n > 64 {
			v.Set(reflect.AppendSlice(reflect.MakeSlice(t, 0, n), v))
		}
		return nil
	}
}

type fastField struct {
	name  string
	index []int
	fn    decodeFn
}

func (d *fastDecoder) compileStruct(t reflect.Type) decodeFn {
	var fields []fastField
	byName := map[string]int{}
	ok := d.structFields(t, nil, &fields)
	for i, f := range fields {
		if _, dup := byName[f.name]; dup {
			ok = false // encoding/json's dominance rules: not needed here
		}
		byName[f.name] = i
	}
	if !ok || len(fields) > 64 {
		return slowPath
	}
	return func(d *fastDecoder, v reflect.Value) error {
		if d.null() {
			return nil
		}
		if !d.open('{') {
			return errSlowPath
		}
		var seen uint64
		if !d.close('}') {
			for {
				key, err := d.key()
				if err != nil {
					return err
				}
				i, known := byName[string(key)]
				switch {
				case known && seen&(1<<i) != 0:
					return errSlowPath
				case known:
					seen |= 1 << i
					f := &fields[i]
					fv := v.Field(f.index[0])
					if len(f.index) > 1 {
						fv = v.FieldByIndex(f.index)
					}
					if err := f.fn(d, fv); err != nil {
						return err
					}
				default:
					for _, f := range fields {
						if bytes.EqualFold(key, []byte(f.name)) {
							return errSlowPath
						}
					}
					if err := d.skip(); err != nil {
						return err
					}
				}
				if d.close('}') {
					break
				}
				if !d.comma() {
					return errSlowPath
				}
			}
		}
		d.depth--
		return nil
	}
}

// structFields lists the fields encoding/json decodes into, with the
// fields of untagged embedded structs promoted. It is false for what the
// fast path leaves to encoding/json.
func (d *fastDecoder) structFields(t reflect.Type, index []int, out *[]fastField) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(","+opts+",", ",string,") {
			return false
		}
		idx := append(index[:len(index):len(index)], i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				return false
			}
			if ft.Kind() == reflect.Struct {
				if !d.structFields(ft, idx, out) {
					return false
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		*out = append(*out, fastField{name: name, index: idx, fn: d.compile(f.Type)})
	}
	return true
}

// ws skips white space.
func (d *fastDecoder) ws() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// open consumes c, which opens an array or object, and the white space
// after it.
func (d *fastDecoder) open(c byte) bool {
	if d.pos >= len(d.data) || d.data[d.pos] != c || d.depth >= maxFastDepth {
		return false
	}
	d.depth++
	d.pos++
	d.ws()
	return true
}

// close consumes c, which closes an array or object, and the white space
// after it, when it is next.
func (d *fastDecoder) close(c byte) bool {
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		d.ws()
		return true
	}
	return false
}

// comma consumes a comma between values, with white space around it.
func (d *fastDecoder) comma() bool {
	if d.pos < len(d.data) && d.data[d.pos] == ',' {
		d.pos++
		d.ws()
		return true
	}
	return false
}

func (d *fastDecoder) literal(s string) bool {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(s)) {
		return false
	}
	d.pos += len(s)
	d.ws()
	return true
}

func (d *fastDecoder) null() bool {
	return d.pos < len(d.data) && d.data[d.pos] == 'n' && d.literal("null")
}

// key reads an object key and its colon. The bytes are valid until the
// next string is read.
func (d *fastDecoder) key() ([]byte, error) {
	b, err := d.strBytes()
	if err != nil {
		return nil, err
	}
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return nil, errSlowPath
	}
	d.pos++
	d.ws()
	return b, nil
}

// str reads a string, interned.
func (d *fastDecoder) str() (string, error) {
	b, err := d.strBytes()
	if err != nil {
		return "", err
	}
	if s, ok := d.strs[string(b)]; ok {
		return s, nil
	}
	s := string(b)
	if len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s, nil
}

// plainString marks the bytes a string holds as they are: not a quote, a
// backslash, a control character or a byte of a multi-byte rune.
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// strBytes reads a string and the white space after it. The bytes are the
// input's or, for a string with escapes, a scratch buffer's.
func (d *fastDecoder) strBytes() ([]byte, error) {
	data := d.data
	if d.pos >= len(data) || data[d.pos] != '"' {
		return nil, errSlowPath
	}
	start := d.pos + 1
	i := start
	for i < len(data) && plainString[data[i]] {
		i++
	}
	if i < len(data) && data[i] == '"' {
		d.pos = i + 1
		d.ws()
		return data[start:i], nil
	}
	// Escapes or multi-byte runes.
	out := d.scratch[:0]
	for {
		j := i
		for j < len(data) && data[j] >= 0x20 && data[j] != '"' && data[j] != '\\' {
			j++
		}
		if !utf8.Valid(data[i:j]) {
			return nil, errSlowPath // encoding/json replaces invalid bytes
		}
		out = append(out, data[start:j]...)
		if j >= len(data) || data[j] < 0x20 {
			return nil, errSlowPath
		}
		if data[j] == '"' {
			d.pos = j + 1
			break
		}
		// A backslash.
		var ok bool
		if out, j, ok = unescape(data, j, out); !ok {
			return nil, errSlowPath
		}
		start, i = j, j
	}
	d.scratch = out
	d.ws()
	return out, nil
}

// unescape appends the character the escape at data[j] (a backslash)
// stands for to out and returns where the escape ends; false for an escape
// the slow path decides (a malformed one, or a lone surrogate that
// encoding/json writes as U+FFFD).
func unescape(data []byte, j int, out []byte) ([]byte, int, bool) {
	if j+1 >= len(data) {
		return out, j, false
	}
	switch c := data[j+1]; c {
	case '"', '\\', '/':
		return append(out, c), j + 2, true
	case 'b':
		return append(out, '\b'), j + 2, true
	case 'f':
		return append(out, '\f'), j + 2, true
	case 'n':
		return append(out, '\n'), j + 2, true
	case 'r':
		return append(out, '\r'), j + 2, true
	case 't':
		return append(out, '\t'), j + 2, true
	case 'u':
		r, ok := hex4(data[j+2:])
		j += 6
		if utf16.IsSurrogate(r) {
			lo, ok2 := rune(-1), false
			if j+1 < len(data) && data[j] == '\\' && data[j+1] == 'u' {
				lo, ok2 = hex4(data[j+2:])
				j += 6
			}
			if r = utf16.DecodeRune(r, lo); !ok2 || r == utf8.RuneError {
				return out, j, false
			}
		}
		if !ok {
			return out, j, false
		}
		return utf8.AppendRune(out, r), j, true
	}
	return out, j, false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number in JSON's grammar, and the white space after it.
func (d *fastDecoder) number() ([]byte, error) {
	data, start, i := d.data, d.pos, d.pos
	digits := func() bool {
		j := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case !digits():
		return nil, errSlowPath
	}
	if i < len(data) && data[i] == '.' {
		i++
		if !digits() {
			return nil, errSlowPath
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if !digits() {
			return nil, errSlowPath
		}
	}
	d.pos = i
	d.ws()
	return data[start:i], nil
}

// skip reads a value of a field the types do not have, checking it is
// valid JSON, as encoding/json does.
func (d *fastDecoder) skip() error {
	if d.pos >= len(d.data) {
		return errSlowPath
	}
	switch c := d.data[d.pos]; {
	case c == '"':
		_, err := d.strBytes()
		return err
	case c == '-' || '0' <= c && c <= '9':
		_, err := d.number()
		return err
	case c == '{':
		if !d.open('{') {
			return errSlowPath
		}
		if d.close('}') {
			break
		}
		for {
			if _, err := d.key(); err != nil {
				return err
			}
			if err := d.skip(); err != nil {
				return err
			}
			if d.close('}') {
				break
			}
			if !d.comma() {
				return errSlowPath
			}
		}
	case c == '[':
		if !d.open('[') {
			return errSlowPath
		}
		if d.close(']') {
			break
		}
		for {
			if err := d.skip(); err != nil {
				return err
			}
			if d.close(']') {
				break
			}
			if !d.comma() {
				return errSlowPath
			}
		}
	case d.literal("true") || d.literal("false") || d.literal("null"):
		return nil
	default:
		return errSlowPath
	}
	d.depth--
	return nil
}
