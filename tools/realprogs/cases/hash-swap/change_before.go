//go:build !after

package main

import "hash/fnv"

// shardKey hashes a key onto the ring with 64-bit FNV-1a.
func shardKey(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}
