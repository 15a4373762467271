//go:build after

package main

import "encoding/json"

type wireEvent struct {
	TS      int64          `json:"ts"`
	User    string         `json:"user"`
	Session string         `json:"session"`
	Path    string         `json:"path"`
	Latency int            `json:"latency_ms"`
	Attrs   map[string]any `json:"attrs"`
}

// encodeEvent renders the event for the next stage; its attributes are a
// generic map, so that new ones need no struct change.
func encodeEvent(e *event) []byte {
	w := wireEvent{TS: e.TS, User: e.User, Session: e.Session, Path: e.Path, Latency: e.LatencyMS,
		Attrs: map[string]any{"region": e.Region, "device": e.Device, "status": e.Status}}
	b, err := json.Marshal(&w)
	if err != nil {
		panic(err)
	}
	return b
}
