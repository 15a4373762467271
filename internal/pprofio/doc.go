// Package pprofio reads and writes profile.proto, pprof's format, faster
// and with less garbage than google/pprof's profile package, with the
// same results: Decode and DecodeStacks are profile.ParseUncompressed
// (refusing what they do not take exactly as it would, so that the caller
// falls back to it), WholeGzip inflates a gzipped file in one piece,
// ReadFields streams the fields pprof reads, StreamStacks and ReadRewrite
// decode a big profile as it is read, and Write is profile.Write, byte
// for byte. The tests check each against google/pprof.
package pprofio

// MaxNameBytes bounds one string of the string table: longer ones are cut
// to their first MaxNameBytes bytes (ReadFields says how many).
const MaxNameBytes = 1 << 20
