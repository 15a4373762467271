//go:build after

package main

import "reflect"

// sameConfig reports whether two configurations are equal; the lists are
// compared with reflect.DeepEqual.
func sameConfig(a, b *config) bool {
	return a.Image == b.Image && a.Replicas == b.Replicas && a.CPU == b.CPU && a.MemoryMB == b.MemoryMB &&
		a.Labels == b.Labels && reflect.DeepEqual(a.Env, b.Env) && reflect.DeepEqual(a.Ports, b.Ports)
}
