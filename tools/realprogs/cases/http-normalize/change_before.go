//go:build !after

package main

import (
	"errors"
	"net/http"
	"strings"
)

// parseQuery reads the search parameters; the free-text ones are normalized.
func parseQuery(r *http.Request) (query, error) {
	v := r.URL.Query()
	q := query{name: normalize(v.Get("name")), city: v.Get("city"), title: normalize(v.Get("title")),
		limit: limitParam(v.Get("limit"))}
	if q.city == "" {
		return q, errors.New("city is required")
	}
	for _, t := range strings.Split(v.Get("tags"), ",") {
		if t != "" {
			q.tags = append(q.tags, t)
		}
	}
	return q, nil
}
