// Command buffer-reuse is a message broker's fetch path: producers append
// messages to partitions that keep a window of recent messages in memory,
// and each consumer fetch encodes a batch of messages into a length-prefixed,
// checksummed frame.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
)

type header struct {
	key, value string
}

type message struct {
	offset  int64
	ts      int64
	key     string
	value   []byte
	headers []header
}

type partition struct {
	id     int
	next   int64
	window []*message // ring of the most recent messages
	head   int
}

type encoder struct {
	scratch []byte
}

func main() {
	n := flag.Int("n", 250000, "consumer fetches")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	parts := makePartitions(16, 20000)
	r := rand.New(rand.NewPCG(41, 42))
	enc := &encoder{}
	stop := startProfile(*prof)
	var sum uint32
	for i := 0; i < *n; i++ {
		p := parts[r.IntN(len(parts))]
		produce(p, r, 8)
		batch := fetch(p, 8)
		sum ^= deliver(enc.encodeFrame(p.id, batch))
	}
	stop()
	fmt.Printf("checksum %08x\n", sum)
}

func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}

func makePartitions(k, window int) []*partition {
	r := rand.New(rand.NewPCG(43, 44))
	out := make([]*partition, k)
	for i := range out {
		out[i] = &partition{id: i, window: make([]*message, window)}
		produce(out[i], r, window)
	}
	return out
}

// produce appends k messages, evicting the oldest ones from the window.
func produce(p *partition, r *rand.Rand, k int) {
	for i := 0; i < k; i++ {
		m := &message{offset: p.next, ts: 1733600000000 + p.next, key: "user-" + strconv.Itoa(r.IntN(100000)),
			value: makeValue(r), headers: []header{{"trace", strconv.FormatUint(r.Uint64(), 16)}, {"src", "api"}}}
		p.window[p.head] = m
		p.head = (p.head + 1) % len(p.window)
		p.next++
	}
}

func makeValue(r *rand.Rand) []byte {
	v := make([]byte, 40+r.IntN(200))
	for i := range v {
		v[i] = byte('a' + i%26)
	}
	return v
}

// fetch returns the k most recent messages of the partition, oldest first.
func fetch(p *partition, k int) []*message {
	out := make([]*message, 0, k)
	for i := k; i > 0; i-- {
		j := (p.head - i + len(p.window)) % len(p.window)
		out = append(out, p.window[j])
	}
	return out
}

// appendMessage writes one message record: offset, timestamp, key, value
// and headers, each length-prefixed.
func appendMessage(b []byte, m *message) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(m.offset))
	b = binary.AppendVarint(b, m.ts)
	b = appendString(b, m.key)
	b = binary.AppendUvarint(b, uint64(len(m.value)))
	b = append(b, m.value...)
	b = binary.AppendUvarint(b, uint64(len(m.headers)))
	for _, h := range m.headers {
		b = appendString(b, h.key)
		b = appendString(b, h.value)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// deliver stands for the socket write: it checksums the frame.
func deliver(frame []byte) uint32 {
	return crc32.ChecksumIEEE(frame)
}
