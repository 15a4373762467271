package pprofio

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"slices"
)

// gunzipWhole decompresses a whole gzip file held in memory (RFC 1952, its
// members one after another, each a DEFLATE stream, RFC 1951), appending
// to out, which should have room for it: the size the last member's
// trailer records. It is compress/gzip's reader for pprof files, which are
// small enough to read whole and are read whole anyway: reading the
// compressed bytes from a slice and writing the output where the decoder
// wants it, with no window to copy out of and no byte-at-a-time input,
// takes about half of compress/flate's time, a third of the CPU of reading
// a profile.
//
// ok is false for anything it does not take exactly as compress/gzip
// would, or that would exceed limit bytes; the caller then reads the input
// with compress/gzip, which gives the authoritative result or error. Every
// member's CRC-32 and size are checked, so an output that is not the
// input's is not returned.
func gunzipWhole(in, out []byte, limit int64) ([]byte, bool) {
	for first := true; first || len(in) > 0; first = false {
		body, ok := gzipHeader(in)
		if !ok {
			return out, false
		}
		start := len(out)
		var used int
		if out, used, ok = inflate(body, out, start, limit); !ok || len(body)-used < 8 {
			return out, false
		}
		trailer := body[used : used+8]
		if binary.LittleEndian.Uint32(trailer) != crc32.ChecksumIEEE(out[start:]) ||
			binary.LittleEndian.Uint32(trailer[4:]) != uint32(len(out)-start) {
			return out, false
		}
		in = body[used+8:]
	}
	// Literals are counted only when they fill out: the total is.
	return out, int64(len(out)) <= limit
}

// gzipHeader returns what follows a gzip member's header, ok false for a
// header compress/gzip would refuse, or one with a header CRC (left to it).
func gzipHeader(b []byte) (rest []byte, ok bool) {
	const fhcrc, fextra, fname, fcomment = 1 << 1, 1 << 2, 1 << 3, 1 << 4
	if len(b) < 10 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 {
		return nil, false
	}
	flg := b[3]
	if flg&0xe0 != 0 || flg&fhcrc != 0 {
		return nil, false
	}
	b = b[10:]
	if flg&fextra != 0 {
		if len(b) < 2 {
			return nil, false
		}
		n := int(binary.LittleEndian.Uint16(b))
		if len(b) < 2+n {
			return nil, false
		}
		b = b[2+n:]
	}
	for _, f := range []byte{fname, fcomment} {
		if flg&f == 0 {
			continue
		}
		i := 0
		for i < len(b) && b[i] != 0 {
			i++
		}
		if i == len(b) {
			return nil, false
		}
		b = b[i+1:]
	}
	return b, true
}

// huffFastBits is the bits a Huffman table decodes with one lookup; the
// rarer longer codes are decoded a bit at a time.
const huffFastBits = 10

// A huffTable decodes one canonical Huffman code (RFC 1951 3.2.2).
type huffTable struct {
	// fast holds, for each value of the next huffFastBits bits, the
	// symbol << 4 | its code's length, or 0 when the code is longer.
	fast [1 << huffFastBits]uint16
	// count is the number of codes of each length, symbols the symbols in
	// code order: for the longer codes.
	count   [16]uint16
	symbols [288]uint16
}

// build makes the table of the code with these code lengths. Like
// compress/flate, it takes complete codes, a code of one 1-bit symbol, and
// an empty code (which fails when it is used), and refuses the others.
func (t *huffTable) build(lengths []uint8) bool {
	t.count = [16]uint16{}
	maxLen := 0
	for _, l := range lengths {
		t.count[l]++
		maxLen = max(maxLen, int(l))
	}
	t.count[0] = 0
	t.fast = [1 << huffFastBits]uint16{}
	if maxLen == 0 {
		return true
	}
	var next [16]int // the next code of each length
	code := 0
	for l := 1; l <= maxLen; l++ {
		code = (code + int(t.count[l-1])) << 1
		next[l] = code
	}
	if used := next[maxLen] + int(t.count[maxLen]); used != 1<<maxLen && !(used == 1 && maxLen == 1) {
		return false
	}
	var offs [16]int
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + int(t.count[l])
	}
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		t.symbols[offs[l]] = uint16(sym)
		offs[l]++
		c := next[l]
		next[l]++
		if int(l) <= huffFastBits {
			// Codes are sent from their first bit, which the bit reader
			// takes lowest: the table is indexed by the code reversed.
			r := int(bits.Reverse16(uint16(c)) >> (16 - l))
			for j := r; j < len(t.fast); j += 1 << l {
				t.fast[j] = uint16(sym)<<4 | uint16(l)
			}
		}
	}
	return true
}

// slow decodes a code longer than huffFastBits (or an invalid one) from
// the low bits of b: its symbol and length, n 0 when b starts no code.
func (t *huffTable) slow(b uint64) (sym, n uint) {
	code, first, index := 0, 0, 0
	for l := 1; l <= 15; l++ {
		code |= int(b & 1)
		b >>= 1
		count := int(t.count[l])
		if code-first < count {
			return uint(t.symbols[index+code-first]), uint(l)
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, 0
}

// A bitReader reads a DEFLATE stream's bits, first bits lowest.
type bitReader struct {
	in   []byte
	pos  int    // the next byte of in to load
	bits uint64 // loaded, not yet used
	nb   uint   // how many bits bits holds
	pad  uint   // zero bytes loaded past the end of in
	bad  bool   // bits past the end were used
}

// refill loads bits until at least 56 are held; past the end of the
// input it loads zero bytes, and notes when one of them was used.
func (br *bitReader) refill() {
	if br.pos+8 <= len(br.in) {
		br.bits |= binary.LittleEndian.Uint64(br.in[br.pos:]) << br.nb
		br.pos += int(63-br.nb) >> 3
		br.nb |= 56
		return
	}
	if br.nb < 8*br.pad {
		br.bad = true
	}
	for br.nb <= 56 {
		if br.pos < len(br.in) {
			br.bits |= uint64(br.in[br.pos]) << br.nb
			br.pos++
		} else {
			br.pad++
		}
		br.nb += 8
	}
}

// take returns the next n bits (n <= 32; refill first).
func (br *bitReader) take(n uint) uint64 {
	v := br.bits & (1<<n - 1)
	br.bits >>= n
	br.nb -= n
	return v
}

// align drops the bits up to the next byte and returns where that byte
// is in the input, ok false when bits past its end were used.
func (br *bitReader) align() (int, bool) {
	br.take(br.nb % 8)
	if br.nb < 8*br.pad || br.bad {
		return 0, false
	}
	at := br.pos - int(br.nb/8-br.pad)
	br.bits, br.nb, br.pad = 0, 0, 0
	return at, true
}

// The base lengths and distances of DEFLATE's length and distance
// symbols, and their extra bits (RFC 1951 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// The order of the code length code's lengths (RFC 1951 3.2.7).
	codeLengthOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// fixedTables are the codes of blocks compressed with fixed codes (RFC
// 1951 3.2.6).
var fixedLit, fixedDist = func() (*huffTable, *huffTable) {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	lit, dist := new(huffTable), new(huffTable)
	lit.build(l[:])
	dist.build(d[:])
	return lit, dist
}()

// An inflater holds the tables of dynamic blocks, reused block to block.
type inflater struct {
	lit, dist, lengths huffTable
	codeLengths        [286 + 30]uint8
}

// inflate decodes the DEFLATE stream at the start of in, appending to out,
// whose bytes from start on are this stream's output (a distance may not
// reach before start). used is the bytes of in it took, to the byte after
// its last bit.
func inflate(in, out []byte, start int, limit int64) (_ []byte, used int, ok bool) {
	br := &bitReader{in: in}
	var dyn *inflater
	for {
		br.refill()
		final, typ := br.take(1), br.take(2)
		switch typ {
		case 0:
			at, ok := br.align()
			if !ok || len(in)-at < 4 {
				return out, 0, false
			}
			n := int(binary.LittleEndian.Uint16(in[at:]))
			if uint16(n) != ^binary.LittleEndian.Uint16(in[at+2:]) || len(in)-at-4 < n || int64(len(out)+n) > limit {
				return out, 0, false
			}
			out = append(out, in[at+4:at+4+n]...)
			br.pos = at + 4 + n
		case 1:
			if out, ok = inflateBlock(br, out, start, limit, fixedLit, fixedDist); !ok {
				return out, 0, false
			}
		case 2:
			if dyn == nil {
				dyn = new(inflater)
			}
			if !dyn.tables(br) {
				return out, 0, false
			}
			if out, ok = inflateBlock(br, out, start, limit, &dyn.lit, &dyn.dist); !ok {
				return out, 0, false
			}
		default:
			return out, 0, false
		}
		if final == 1 {
			at, ok := br.align()
			return out, at, ok
		}
	}
}

// tables reads a dynamic block's codes (RFC 1951 3.2.7), refusing what
// compress/flate refuses.
func (f *inflater) tables(br *bitReader) bool {
	br.refill()
	nlit, ndist, nclen := int(br.take(5))+257, int(br.take(5))+1, int(br.take(4))+4
	if nlit > 286 || ndist > 30 {
		return false
	}
	var clen [19]uint8
	for i := range nclen {
		if i%8 == 0 {
			br.refill()
		}
		clen[codeLengthOrder[i]] = uint8(br.take(3))
	}
	if !f.lengths.build(clen[:]) {
		return false
	}
	lengths := f.codeLengths[:nlit+ndist]
	for i := 0; i < len(lengths); {
		br.refill()
		sym, n := f.lengths.decode(br.bits)
		if n == 0 {
			return false
		}
		br.take(n)
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return false
			}
			rep, v = 3+int(br.take(2)), lengths[i-1]
		case 17:
			rep = 3 + int(br.take(3))
		default:
			rep = 11 + int(br.take(7))
		}
		if i+rep > len(lengths) {
			return false
		}
		for range rep {
			lengths[i] = v
			i++
		}
	}
	if br.bad || lengths[256] == 0 { // a block must be able to end
		return false
	}
	return f.lit.build(lengths[:nlit]) && f.dist.build(lengths[nlit:])
}

// decode returns the symbol the low bits of b start with and its code's
// length, n 0 when they start none.
func (t *huffTable) decode(b uint64) (sym, n uint) {
	if e := t.fast[b&(1<<huffFastBits-1)]; e != 0 {
		return uint(e >> 4), uint(e & 15)
	}
	return t.slow(b)
}

// inflateBlock decodes a compressed block's symbols with these codes. The
// bit reader's state is kept in locals (registers) here, where nearly all
// of the time goes.
func inflateBlock(br *bitReader, out []byte, start int, limit int64, lit, dist *huffTable) ([]byte, bool) {
	in, pos, b, nb := br.in, br.pos, br.bits, br.nb
	for {
		// A literal or length takes at most 15 + 5 bits, a distance
		// 15 + 13: one refill to 56 bits is enough for a symbol and its
		// distance.
		if pos+8 <= len(in) {
			b |= binary.LittleEndian.Uint64(in[pos:]) << nb
			pos += int(63-nb) >> 3
			nb |= 56
		} else {
			br.pos, br.bits, br.nb = pos, b, nb
			br.refill()
			if br.bad {
				return out, false
			}
			pos, b, nb = br.pos, br.bits, br.nb
		}
		var sym, n uint
		if e := lit.fast[b&(1<<huffFastBits-1)]; e != 0 {
			sym, n = uint(e>>4), uint(e&15)
		} else if sym, n = lit.slow(b); n == 0 {
			return out, false
		}
		b >>= n
		nb -= n
		if sym < 256 {
			if len(out) == cap(out) && int64(len(out)) >= limit {
				return out, false // at the limit: not to grow past it
			}
			out = append(out, byte(sym))
			continue
		}
		if sym == 256 {
			br.pos, br.bits, br.nb = pos, b, nb
			return out, true
		}
		sym -= 257
		if sym >= 29 {
			return out, false
		}
		x := uint(lengthExtra[sym])
		length := int(lengthBase[sym]) + int(b&(1<<x-1))
		b >>= x
		nb -= x
		var dsym uint
		if e := dist.fast[b&(1<<huffFastBits-1)]; e != 0 {
			dsym, n = uint(e>>4), uint(e&15)
		} else if dsym, n = dist.slow(b); n == 0 {
			return out, false
		}
		if dsym >= 30 {
			return out, false
		}
		b >>= n
		nb -= n
		x = uint(distExtra[dsym])
		d := int(distBase[dsym]) + int(b&(1<<x-1))
		b >>= x
		nb -= x
		end := len(out)
		if d > end-start || int64(end+length) > limit {
			return out, false
		}
		from := end - d
		if d >= length {
			out = append(out, out[from:from+length]...)
			continue
		}
		// An overlapping copy repeats the last d bytes: copied in runs
		// that double, each a whole number of periods.
		out = slices.Grow(out, length)[:end+length]
		for done := 0; done < length; {
			done += copy(out[end+done:end+length], out[from:end+done])
		}
	}
}
