#!/bin/sh
# bench/moreruns.sh checks that 10 + 10 and 30 + 30 runs find at least what
# 3 + 3 finds on the same injected change, on disjoint replicates, against
# synth's ground truth: synth -stacks 20000 -runs 100 (seed 1), cut into ten
# blocks of 10 runs a side (3 + 3 = a block's first three) and three blocks
# of 30; for each block, the causes of 3 + 3 that the whole block does not
# find again, with their true change (tools/synth/cmd/misses).
#
# Usage: sh bench/moreruns.sh [CTDIFF]   (WORK=/tmp/ctdiff-moreruns by default)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/ctdiff-moreruns}
cd "$ROOT"
CTDIFF=${1:-$WORK/ctdiff}
mkdir -p "$WORK"
[ "$CTDIFF" != "$WORK/ctdiff" ] || go build -o "$WORK/ctdiff" ./cmd/ctdiff
go build -o "$WORK/misses" ./tools/synth/cmd/misses
[ -f "$WORK/runs/new/100.pb.gz" ] || go run ./tools/synth/cmd/synth -stacks 20000 -runs 100 -o "$WORK/runs" >/dev/null

# block NAME FIRST K: runs FIRST+1 .. FIRST+K of each side, linked.
block() {
	rm -rf "$WORK/$1"
	mkdir -p "$WORK/$1/base" "$WORK/$1/new"
	i=1
	while [ "$i" -le "$3" ]; do
		for side in base new; do
			ln -s "$WORK/runs/$side/$(($2 + i)).pb.gz" "$WORK/$1/$side/$i.pb.gz"
		done
		i=$((i + 1))
	done
	"$CTDIFF" diff "$WORK/$1/base" "$WORK/$1/new" --format json -o "$WORK/$1.json" 2>/dev/null
}
check() { # KFEW KMORE FIRST
	block "few" "$3" "$1"
	block "more" "$3" "$2"
	echo "runs $(($3 + 1))-$(($3 + $2)):"
	"$WORK/misses" -stacks 20000 -runs "$1,$2" "$WORK/few.json" "$WORK/more.json" | sed 's/^/  /'
}
for r in 0 1 2 3 4 5 6 7 8 9; do check 3 10 $((10 * r)); done
for r in 0 1 2; do check 3 30 $((30 * r)); done
