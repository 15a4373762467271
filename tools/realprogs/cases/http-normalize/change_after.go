//go:build after

package main

import (
	"errors"
	"net/http"
	"strings"
)

// parseQuery reads the search parameters; every one of them is normalized,
// and the tags are normalized again after splitting.
func parseQuery(r *http.Request) (query, error) {
	v := r.URL.Query()
	q := query{name: normalize(v.Get("name")), city: normalize(v.Get("city")), title: normalize(v.Get("title")),
		limit: limitParam(normalize(v.Get("limit")))}
	if normalize(q.city) == "" {
		return q, errors.New("city is required")
	}
	for _, t := range strings.Split(normalize(v.Get("tags")), ",") {
		if t = normalize(t); t != "" {
			q.tags = append(q.tags, t)
		}
	}
	q.name = normalize(q.name)
	q.title = normalize(q.title)
	return q, nil
}
