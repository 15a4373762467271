//go:build after

package main

import (
	"errors"
	"log"
)

// logger writes the service log to the in-memory buffer.
var logger = log.New(&logBuf, "orders ", log.LstdFlags|log.Lmicroseconds)

// processPayment checks the card and the fraud score and authorizes the
// amount, logging each authorization.
func processPayment(o *order) (string, error) {
	if !luhn(o.card) {
		return "", errors.New("invalid card")
	}
	score := fraudScore(o)
	if score > 40 {
		return "", errors.New("payment declined")
	}
	tok := tokenize(o.card)
	logger.Printf("payment authorized order=%s customer=%s amount=%d.%02d country=%s score=%d token=%s",
		o.id, o.customer, (o.total+o.shipping)/100, (o.total+o.shipping)%100, o.country, score, tok)
	return tok, nil
}
