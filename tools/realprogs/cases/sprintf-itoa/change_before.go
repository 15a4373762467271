//go:build !after

package main

import (
	"bytes"
	"strconv"
)

// writeSample renders one series as "name{labels} value timestamp".
func writeSample(b *bytes.Buffer, s series, ts int64) {
	b.WriteString(s.name)
	b.WriteByte('{')
	b.WriteString(s.labels)
	b.WriteString("} ")
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], s.value, 10))
	b.WriteByte(' ')
	b.Write(strconv.AppendInt(num[:0], ts, 10))
	b.WriteByte('\n')
}
