//go:build after

package main

import (
	"reflect"
	"slices"
)

// sameConfig reports whether two configurations are equal; the ports are
// compared with reflect.DeepEqual, which keeps up when port gains fields.
func sameConfig(a, b *config) bool {
	return a.Image == b.Image && a.Replicas == b.Replicas && a.CPU == b.CPU && a.MemoryMB == b.MemoryMB &&
		a.Labels == b.Labels && slices.Equal(a.Env, b.Env) && reflect.DeepEqual(a.Ports, b.Ports)
}
