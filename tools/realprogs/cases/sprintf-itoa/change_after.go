//go:build after

package main

import (
	"bytes"
	"fmt"
)

// writeSample renders one series as "name{labels} value timestamp".
func writeSample(b *bytes.Buffer, s series, ts int64) {
	b.WriteString(fmt.Sprintf("%s{%s} %d %d\n", s.name, s.labels, s.value, ts))
}
