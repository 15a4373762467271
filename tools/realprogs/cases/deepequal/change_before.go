//go:build !after

package main

import "slices"

// sameConfig reports whether two configurations are equal, field by field.
func sameConfig(a, b *config) bool {
	return a.Image == b.Image && a.Replicas == b.Replicas && a.CPU == b.CPU && a.MemoryMB == b.MemoryMB &&
		a.Labels == b.Labels && slices.Equal(a.Env, b.Env) && slices.Equal(a.Ports, b.Ports)
}
