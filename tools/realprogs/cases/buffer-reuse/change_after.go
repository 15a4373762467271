//go:build after

package main

import (
	"encoding/binary"
	"hash/crc32"
)

// encodeFrame encodes a batch as one frame: length, partition, checksum and
// records, in a buffer of its own of the frame's exact size.
func (e *encoder) encodeFrame(partition int, batch []*message) []byte {
	b := make([]byte, 0, frameSize(batch))
	b = append(b, 0, 0, 0, 0) // length, filled in below
	b = binary.BigEndian.AppendUint32(b, uint32(partition))
	b = append(b, 0, 0, 0, 0) // checksum of the records
	for _, m := range batch {
		b = appendMessage(b, m)
	}
	binary.BigEndian.PutUint32(b[8:], crc32.ChecksumIEEE(b[12:]))
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// frameSize is the encoded size of a frame of the batch.
func frameSize(batch []*message) int {
	n := 12
	for _, m := range batch {
		n += 8 + binary.MaxVarintLen64*3 + len(m.key) + len(m.value)
		for _, h := range m.headers {
			n += 2*binary.MaxVarintLen64 + len(h.key) + len(h.value)
		}
	}
	return n
}
