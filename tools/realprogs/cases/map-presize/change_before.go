//go:build !after

package main

// indexCustomers maps each customer's id to the customer; the map is sized
// for the batch, so it never grows.
func indexCustomers(cs []customer) map[int64]*customer {
	byID := make(map[int64]*customer, len(cs))
	for i := range cs {
		byID[cs[i].ID] = &cs[i]
	}
	return byID
}
