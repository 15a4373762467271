package convert

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ctdiff/ctdiff/stacks"
)

// Readers of call trees (V8 node lists, PerfView stacks, ctdiff.cct/v1)
// name a node per sample, and a node's stack is its whole path: a small
// file that samples deep nodes many times would expand into depth × samples
// frames. A stackPool lays out the stack of each sampled node once, leaf
// first, in one array that the samples share (stacks.Samples.Starts, or
// profile.Sample.Location slices of one array), and a node whose stack is
// the tail of one laid out before it (an ancestor on that one's path) takes
// no room at all: nodes are laid out deepest first, so a chain of any
// length sampled at every depth takes one stack's room. Memory then grows
// with the frames of distinct stacks that share no tail, which the pool
// bounds by poolFramesPerNode per node of the tree and poolFramesPerByte
// per input byte, at least minPoolFrames. A comb (a leaf sampled below
// every node of a deep chain) holds the square of its depth; real trees
// hold 2-18 frames a node (the corpus's V8, DevTools and PerfView trees).
// The bound is by nodes, not only by bytes: white space or comments that
// compress a thousandfold (60 MB of them in a 350 KB gzipped PerfView
// file) raised a bound by bytes alone to 240 M frames, 1.6 GB to read
// and build the comb below it.
const (
	poolFramesPerNode = 64
	poolFramesPerByte = 4
	minPoolFrames     = 1 << 22
)

type stackPool struct {
	locs  []int32 // location indexes in the profileBuilder's profile, leaf first
	limit int64
}

// A stackRef is a node's stack: pool.locs[start:end]. The zero value means
// not laid out (no stack is empty).
type stackRef struct{ start, end int }

func (r stackRef) laidOut() bool { return r.end > r.start }

// newStackPool returns the pool of the stacks of a tree of nodes nodes.
func (in *parserInput) newStackPool(nodes int) *stackPool {
	// Samples name their stacks by int32 offsets (stacks.Samples.Starts).
	return &stackPool{limit: poolLimit(in.bytesRead(), nodes)}
}

// poolLimit is the limit of a stack pool of a tree of nodes nodes from an
// input of n bytes: poolFramesPerNode a node and poolFramesPerByte a
// byte, at least minPoolFrames, and at most stacks.MaxLocations, since
// samples name their stacks by int32 offsets.
func poolLimit(n int64, nodes int) int64 {
	return min(stacks.MaxLocations, max(minPoolFrames, min(poolFramesPerByte*n, poolFramesPerNode*int64(nodes))))
}

// poolLimitRule says which rule set a pool's limit, for its error.
func poolLimitRule(limit int64) string {
	if limit == stacks.MaxLocations {
		return "the most the compact samples can address"
	}
	return fmt.Sprintf("%d per node of the tree and %d per input byte, at least %d", poolFramesPerNode, poolFramesPerByte, minPoolFrames)
}

// A stackWalker appends node n's stack, leaf first, to frames (location
// indexes) and, for each frame, to owners the node whose own stack is the
// rest of the stack from that frame on, or -1 where no node's is.
type stackWalker func(n int32, frames, owners []int32) ([]int32, []int32)

// layout lays out the stacks of nodes (each sampled node once; depth[n] is
// the number of frames of n's stack) into refs, indexed by node.
func (sp *stackPool) layout(nodes []int32, depth func(n int32) int, refs []stackRef, walk stackWalker) error {
	order := slices.Clone(nodes)
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(depth(b), depth(a)) })
	var frames, owners []int32
	for _, n := range order {
		if refs[n].laidOut() {
			continue
		}
		if int64(len(sp.locs))+int64(depth(n)) > sp.limit {
			return fmt.Errorf("%w: the stacks of the sampled nodes hold more than %d frames that share no tail "+
				"(%s): a deep call tree sampled at many places",
				errStackLimit, sp.limit, poolLimitRule(sp.limit))
		}
		frames, owners = walk(n, frames[:0], owners[:0])
		start := len(sp.locs)
		sp.locs = append(sp.locs, frames...)
		end := len(sp.locs)
		refs[n] = stackRef{start, end}
		for k := 1; k < len(owners); k++ {
			if a := owners[k]; a >= 0 && !refs[a].laidOut() {
				refs[a] = stackRef{start + k, end}
			}
		}
	}
	return nil
}
