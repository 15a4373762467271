//go:build after

package main

import (
	"strconv"
	"time"
)

// formatRow renders one order as a CSV row, appending field by field to a
// string.
func formatRow(o *order) string {
	row := strconv.Itoa(o.ID)
	row += "," + o.Placed.Format(time.RFC3339)
	row += "," + csvField(o.Customer.Name)
	row += "," + csvField(o.Customer.Email)
	row += "," + o.Customer.Region
	row += "," + o.Customer.Segment
	row += "," + o.Status
	row += "," + strconv.Itoa(len(o.Lines))
	row += "," + skuList(o)
	row += "," + money(o.Subtotal)
	row += "," + money(o.Tax)
	row += "," + money(o.Subtotal+o.Tax)
	row += "," + csvField(o.Note)
	row += "\n"
	return row
}
