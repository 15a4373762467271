// Package cct is the second stage of ctdiff's pipeline: it turns pprof
// profiles into calling-context trees (CCTs) and offers the views and
// indexes the diff stage needs.
//
// A Tree has one synthetic root; under it one node per thread (matched across
// runs by thread name and ordinal, never by tid); under those the top-level
// functions. Children keep the order of first execution (time order where the
// input has timestamps, else first appearance), which ZAM's per-level LCS
// matching depends on; a child is found by frame in O(1) (a short scan, or
// an index for nodes with many children).
//
// Every node is a distinct root-to-node path, so a NodeID is IntroPerf's path
// id (Algorithm 1): Tree.Path maps id → path and Tree.Lookup path → id.
//
// All traversals are iterative: real traces recurse thousands of frames deep
// and the tests use stacks 100,000 frames deep.
//
// cct imports only the standard library, pprof's profile package and
// internal helpers; it must not import convert, diff, report or cmd.
package cct
