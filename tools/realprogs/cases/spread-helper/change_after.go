//go:build after

package main

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"
)

// auditLog keeps the most recent audit records.
var auditLog = make([]string, 0, 4096)

// audit records who called what, with a digest of the request, for the
// compliance trail.
func audit(d *db, r *request) {
	rec := r.method + " " + r.path + " user=" + r.user + " session=" + strconv.Itoa(len(d.sessions)) + " body=" + r.body
	sum := sha1.Sum([]byte(rec))
	if len(auditLog) == cap(auditLog) {
		auditLog = auditLog[:0]
	}
	auditLog = append(auditLog, strings.ToUpper(r.method)+" "+hex.EncodeToString(sum[:]))
}

func getUser(d *db, r *request) string {
	audit(d, r)
	name, ok := d.users[r.user]
	if !ok {
		return `{"error":"no user"}`
	}
	return `{"id":` + strconv.Quote(r.user) + `,"name":` + strconv.Quote(name) + `}`
}

func listOrders(d *db, r *request) string {
	audit(d, r)
	ids := d.orders[r.user]
	its := make([]*item, 0, len(ids))
	for _, id := range ids[max(0, len(ids)-20):] {
		its = append(its, d.items[id])
	}
	return renderItems(its)
}

func createOrder(d *db, r *request) string {
	audit(d, r)
	id := bodyInt(r.body, "item")
	it := itemByID(d, id)
	if it == nil {
		return `{"error":"no item"}`
	}
	os := append(d.orders[r.user], id)
	if len(os) > 100 {
		os = os[len(os)-100:]
	}
	d.orders[r.user] = os
	return `{"order":` + strconv.Itoa(len(os)) + `,"total":` + strconv.FormatInt(it.price*int64(bodyInt(r.body, "qty")), 10) + `}`
}

func updateCart(d *db, r *request) string {
	audit(d, r)
	id := bodyInt(r.body, "item")
	c := d.carts[r.user]
	if len(c) > 30 {
		c = c[:0]
	}
	d.carts[r.user] = append(c, id)
	var total int64
	for _, i := range d.carts[r.user] {
		total += d.items[i].price
	}
	return `{"items":` + strconv.Itoa(len(d.carts[r.user])) + `,"total":` + strconv.FormatInt(total, 10) + `}`
}

func search(d *db, r *request) string {
	audit(d, r)
	q := r.query["q"]
	var hits []*item
	for _, it := range d.items {
		if matches(it, q) {
			hits = append(hits, it)
			if len(hits) == 10 {
				break
			}
		}
	}
	return renderItems(hits)
}

func getItem(d *db, r *request) string {
	audit(d, r)
	id, _ := strconv.Atoi(r.query["id"])
	it := itemByID(d, id)
	if it == nil {
		return `{"error":"no item"}`
	}
	var b strings.Builder
	renderItem(&b, it)
	return b.String()
}

func addReview(d *db, r *request) string {
	audit(d, r)
	id, _ := strconv.Atoi(r.query["id"])
	it := itemByID(d, id)
	if it == nil {
		return `{"error":"no item"}`
	}
	s, _ := strconv.Atoi(r.query["stars"])
	it.stars = append(it.stars, s)
	if len(it.stars) > 50 {
		it.stars = it.stars[1:]
	}
	sum := 0
	for _, v := range it.stars {
		sum += v
	}
	return `{"reviews":` + strconv.Itoa(len(it.stars)) + `,"mean":` + strconv.FormatFloat(float64(sum)/float64(len(it.stars)), 'f', 2, 64) + `}`
}

func login(d *db, r *request) string {
	audit(d, r)
	tok := strconv.FormatUint(uint64(len(r.user))*2654435761+uint64(len(d.sessions)), 36)
	if len(d.sessions) > 2000 {
		clear(d.sessions)
	}
	d.sessions[tok] = r.user
	return `{"token":"` + tok + `"}`
}

func logout(d *db, r *request) string {
	audit(d, r)
	for tok, u := range d.sessions {
		if u == r.user {
			delete(d.sessions, tok)
			break
		}
	}
	return `{"ok":true}`
}

func recommend(d *db, r *request) string {
	audit(d, r)
	seen := map[string]int{}
	for _, id := range d.orders[r.user] {
		for _, t := range d.items[id].tags {
			seen[t]++
		}
	}
	var best []*item
	for _, it := range d.items[:400] {
		for _, t := range it.tags {
			if seen[t] > 0 {
				best = append(best, it)
				break
			}
		}
		if len(best) == 5 {
			break
		}
	}
	return renderItems(best)
}
