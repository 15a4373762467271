//go:build !after

package main

import "errors"

// processPayment checks the card and the fraud score and authorizes the
// amount.
func processPayment(o *order) (string, error) {
	if !luhn(o.card) {
		return "", errors.New("invalid card")
	}
	if fraudScore(o) > 40 {
		return "", errors.New("payment declined")
	}
	return tokenize(o.card), nil
}
