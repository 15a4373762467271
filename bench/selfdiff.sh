#!/bin/sh
# bench/selfdiff.sh runs ctdiff on its own profiles: it CPU-profiles
# `ctdiff diff` on the 200,000-stack synthetic pair (BenchmarkDiffSynth in
# cmd/ctdiff) at an older revision and at the working tree, RUNS times
# each, and compares the two sets with ctdiff itself, both ways: what got
# faster (the old profiles as "new") and what got slower.
#
# Usage: sh bench/selfdiff.sh [REV [RUNS]]   (default REV c14f00d, an
# early revision; RUNS 3; WORK=/tmp/ctdiff-selfdiff)
#
# REV needs BenchmarkDiffSynth (cmd/ctdiff/bench_test.go), present since
# e9fdde0. The profiles include the benchmark's setup (generating the pair),
# which is the same code at both revisions and so shows no change.
set -eu

REV=${1:-c14f00d}
RUNS=${2:-3}
WORK=${WORK:-/tmp/ctdiff-selfdiff}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

rm -rf "$WORK"
mkdir -p "$WORK/prof/old" "$WORK/prof/new"
cd "$ROOT"
git worktree add --detach "$WORK/rev" "$REV" >/dev/null 2>&1
trap 'git -C "$ROOT" worktree remove --force "$WORK/rev"' EXIT
(cd "$WORK/rev" && go test -c -o "$WORK/old.test" ./cmd/ctdiff)
go test -c -o "$WORK/new.test" ./cmd/ctdiff
go build -o "$WORK/ctdiff" ./cmd/ctdiff

i=1
while [ "$i" -le "$RUNS" ]; do
	for side in old new; do
		echo "bench/selfdiff.sh: $side, run $i of $RUNS" >&2
		"$WORK/$side.test" -test.run '^$' -test.bench '^BenchmarkDiffSynth$' -test.benchtime 3x \
			-test.cpuprofile "$WORK/prof/$side/$i.pb.gz" >"$WORK/$side.$i.txt"
		grep '^BenchmarkDiffSynth' "$WORK/$side.$i.txt" >&2
	done
	i=$((i + 1))
done

echo "## What got faster from $REV to the working tree (the $REV profiles as NEW)"
"$WORK/ctdiff" diff "$WORK/prof/new" "$WORK/prof/old" --min-delta 2% || true
echo
echo "## What got slower"
"$WORK/ctdiff" diff "$WORK/prof/old" "$WORK/prof/new" --min-delta 2% || true
