//go:build !after

package main

import (
	"encoding/binary"
	"hash/crc32"
)

// encodeFrame encodes a batch as one frame: length, partition, checksum and
// records. The encoder's scratch buffer is reused from fetch to fetch.
func (e *encoder) encodeFrame(partition int, batch []*message) []byte {
	b := e.scratch[:0]
	b = append(b, 0, 0, 0, 0) // length, filled in below
	b = binary.BigEndian.AppendUint32(b, uint32(partition))
	b = append(b, 0, 0, 0, 0) // checksum of the records
	for _, m := range batch {
		b = appendMessage(b, m)
	}
	binary.BigEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	e.scratch = b
	return b
}
