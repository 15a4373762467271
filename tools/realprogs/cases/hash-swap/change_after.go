//go:build after

package main

import (
	"crypto/sha256"
	"encoding/binary"
)

// shardKey hashes a key onto the ring with the first 8 bytes of its
// SHA-256, for a more uniform spread.
func shardKey(key string) uint64 {
	sum := sha256.Sum256([]byte(key))
	return binary.BigEndian.Uint64(sum[:8])
}
