//go:build after

package main

// indexCustomers maps each customer's id to the customer.
func indexCustomers(cs []customer) map[int64]*customer {
	byID := make(map[int64]*customer)
	for i := range cs {
		byID[cs[i].ID] = &cs[i]
	}
	return byID
}
