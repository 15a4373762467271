//go:build !after

package main

import "encoding/json"

type wireEvent struct {
	TS      int64     `json:"ts"`
	User    string    `json:"user"`
	Session string    `json:"session"`
	Path    string    `json:"path"`
	Latency int       `json:"latency_ms"`
	Attrs   wireAttrs `json:"attrs"`
}

type wireAttrs struct {
	Region string `json:"region"`
	Device string `json:"device"`
	Status int    `json:"status"`
}

// encodeEvent renders the event for the next stage.
func encodeEvent(e *event) []byte {
	w := wireEvent{TS: e.TS, User: e.User, Session: e.Session, Path: e.Path, Latency: e.LatencyMS,
		Attrs: wireAttrs{Region: e.Region, Device: e.Device, Status: e.Status}}
	b, err := json.Marshal(&w)
	if err != nil {
		panic(err)
	}
	return b
}
