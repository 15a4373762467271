//go:build !after

package main

import (
	"strconv"
	"strings"
	"time"
)

// formatRow renders one order as a CSV row with a strings.Builder.
func formatRow(o *order) string {
	var b strings.Builder
	b.Grow(256)
	b.WriteString(strconv.Itoa(o.ID))
	b.WriteByte(',')
	b.WriteString(o.Placed.Format(time.RFC3339))
	b.WriteByte(',')
	b.WriteString(csvField(o.Customer.Name))
	b.WriteByte(',')
	b.WriteString(csvField(o.Customer.Email))
	b.WriteByte(',')
	b.WriteString(o.Customer.Region)
	b.WriteByte(',')
	b.WriteString(o.Customer.Segment)
	b.WriteByte(',')
	b.WriteString(o.Status)
	b.WriteByte(',')
	b.WriteString(strconv.Itoa(len(o.Lines)))
	b.WriteByte(',')
	b.WriteString(skuList(o))
	b.WriteByte(',')
	b.WriteString(money(o.Subtotal))
	b.WriteByte(',')
	b.WriteString(money(o.Tax))
	b.WriteByte(',')
	b.WriteString(money(o.Subtotal + o.Tax))
	b.WriteByte(',')
	b.WriteString(csvField(o.Note))
	b.WriteByte('\n')
	return b.String()
}
