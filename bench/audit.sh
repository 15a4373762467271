#!/bin/sh
# bench/audit.sh runs the case families of tools/audit (a harness with
# its own generator, noise and scorer, written apart from ctdiff's) on one
# or more ctdiff binaries and prints, per family and binary, how many
# comparisons had a false cause, how many had any cause, and the injected
# changes found and missed (the verdict tables of BENCHMARKS.md).
#
#   sh bench/audit.sh [-n SEEDS] CTDIFF...
#
# ONLY=REGEX (an extended regular expression) runs the families whose
# labels match it, say ONLY='^improve|^null-k3'.
#
# Each family runs seeds 1..SEEDS (default 30; the null families 50); the
# runs are generated once under WORK (default /tmp/ctdiff-audit) and every
# binary compares the same ones.
set -eu

SEEDS=30
if [ "${1:-}" = "-n" ]; then
	SEEDS=$2
	shift 2
fi
[ $# -gt 0 ] || { sed -n '2,9p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/ctdiff-audit}
mkdir -p "$WORK"
BINS=""
for b in "$@"; do
	BINS="$BINS $(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
done
cd "$ROOT"
go build -o "$WORK/gen" ./tools/audit/cmd/gen
go build -o "$WORK/score" ./tools/audit/cmd/score

# family LABEL CASE K SEEDS "GEN ARGS" "CTDIFF ARGS" [swap]
family() {
	label=$1 cs=$2 k=$3 n=$4 gargs=$5 cargs=$6 swap=${7:-}
	if [ -n "${ONLY:-}" ] && ! echo "$label" | grep -Eq "$ONLY"; then
		return 0
	fi
	s=1
	while [ "$s" -le "$n" ]; do
		d=$WORK/data/$label/s$s
		if [ ! -f "$d/truth.json" ]; then
			rm -rf "$d"
			# shellcheck disable=SC2086
			"$WORK/gen" -case "$cs" -k "$k" -seed "$s" -out "$d" $gargs >/dev/null
		fi
		s=$((s + 1))
	done
	i=0
	for bin in $BINS; do
		i=$((i + 1))
		out=$WORK/$label.$i.jsonl
		: >"$out"
		s=1
		while [ "$s" -le "$n" ]; do
			d=$WORK/data/$label/s$s
			old=$d/before new=$d/after
			if [ -n "$swap" ]; then
				old=$d/after new=$d/before
			fi
			# shellcheck disable=SC2086
			"$bin" diff "$old" "$new" --format json -o "$d/out.$i.json" $cargs 2>/dev/null || true
			"$WORK/score" -label "$label" -truth "$d/truth.json" -out "$d/out.$i.json" >>"$out"
			s=$((s + 1))
		done
		# Swapped, the truth is of the other direction: every cause is
		# false (nothing got slower from after to before), and only the
		# comparisons with any cause are counted.
		awk -v label="$label" -v bin="ctdiff$i" -v k="$k" -v swap="$swap" '
			{
				fa = 0; if (match($0, /"false_alarms":[0-9]+/)) fa = substr($0, RSTART + 15, RLENGTH - 15) + 0
				de = 0; if (match($0, /"detected":[0-9]+/)) de = substr($0, RSTART + 11, RLENGTH - 11) + 0
				mi = 0; if (match($0, /"missed":[0-9]+/)) mi = substr($0, RSTART + 9, RLENGTH - 9) + 0
				cz = 0; if (match($0, /"causes":\[\{/)) cz = 1
				runs++; if (fa > 0) runsFA++; if (cz || fa > 0) withCause++; det += de; miss += mi
			}
			END {
				if (swap != "") runsFA = withCause
				printf "%-26s %-8s K=%-2s %3d comparisons: %3d with a false cause, %3d with any, found %d, missed %d\n", label, bin, k, runs, runsFA, withCause, det, miss
			}
		' "$out"
	done
}

N50=$SEEDS
if [ "$SEEDS" -eq 30 ]; then
	N50=50
fi
family null-intersect-k5 null 5 "$SEEDS" "" "--aggregate intersect"
family inline-flat-k5-s0.03 inline-flat 5 "$SEEDS" "-sigma 0.03" ""
family inline-flat-k3 inline-flat 3 "$SEEDS" "" ""
family inline-flat-k5 inline-flat 5 "$SEEDS" "" ""
family no-longer-inlined-k5 inline-flat 5 "$SEEDS" "-sigma 0.03" "" swap
family improve-k3 improve 3 "$SEEDS" "" ""
family improve-k5 improve 5 "$SEEDS" "" ""
family duration-k5 duration 5 10 "" ""
family null-k3-s0.05 null 3 "$N50" "-sigma 0.05" ""
family null-k5-s0.1 null 5 "$N50" "-sigma 0.1" ""
family null-k1-s0.1 null 1 "$N50" "-sigma 0.1" ""
family null-31s-k5 null 5 "$N50" "-durafter 31" ""
family rate-k5 rate 5 "$SEEDS" "" ""
family small-k3-2000ms small 3 "$SEEDS" "-delta 2000" ""
family small-k5-800ms small 5 "$SEEDS" "-delta 800" ""
family small-k10-800ms small 10 "$SEEDS" "-delta 800" ""
# Recursion depth, uneven threads, spread changes, collector outliers,
# warm-up, trade-offs, flat profiles, lambdas, idle time, uneven run counts.
family recursion-vary-null-k3 recursion-vary-null 3 "$N50" "" ""
family threads-uneven-k5-2000ms threads-uneven 5 "$SEEDS" "-sigma 0.03 -delta 2000" ""
family threads-uneven-null-k5 threads-uneven-null 5 "$SEEDS" "" ""
family spread-k5-1000ms spread 5 "$SEEDS" "-sigma 0.05 -delta 1000" ""
family spread-null-k5 spread-null 5 "$SEEDS" "" ""
family gc-outlier-k3 gc-outlier 3 "$SEEDS" "" ""
family warmup-k5 warmup 5 "$SEEDS" "" ""
family trade-k5-1000ms trade 5 "$SEEDS" "-delta 1000" ""
family flat-one-k5-1500ms flat-one 5 "$SEEDS" "-delta 1500" ""
family lambda-folded-k5-1000ms lambda 5 "$SEEDS" "-format folded -sigma 0.03 -delta 1000" ""
family idle-cpuprofile-null-k5 idle 5 "$SEEDS" "-format cpuprofile" ""
family null-10v3 null 10 "$N50" "-knew 3" ""
# Renumbered closures, renamed and merged generics, truncated stacks, and
# functions, files and scripts that moved.
family closure-renumber-null-k5 closure-renumber-null 5 "$SEEDS" "" ""
family closure-renumber-k5-1000ms closure-renumber 5 "$SEEDS" "-sigma 0.05 -delta 1000" ""
family generic-renamed-null-k5 generic-renamed-null 5 "$SEEDS" "" ""
family generic-renamed-k5-1000ms generic-renamed 5 "$SEEDS" "-sigma 0.05 -delta 1000" ""
family generic-merged-null-k5 generic-merged-null 5 "$SEEDS" "" ""
family truncated-null-k5 truncated-null 5 "$SEEDS" "" ""
family truncated-perf-null-k5 truncated-perf-null 5 "$SEEDS" "-format folded" ""
family truncated-vary-null-k3 truncated-vary-null 3 "$SEEDS" "" ""
family truncated-vary-null-k5 truncated-vary-null 5 "$SEEDS" "" ""
family moved-line-null-k5 moved-line-null 5 "$SEEDS" "" ""
family moved-file-null-k5 moved-file-null 5 "$SEEDS" "" ""
family moved-file-k5-1000ms moved-file 5 "$SEEDS" "-sigma 0.05 -delta 1000" ""
family moved-js-null-k5 moved-js-null 5 "$SEEDS" "-format cpuprofile" ""
family moved-js-k5-1000ms moved-js 5 "$SEEDS" "-format cpuprofile -sigma 0.05 -delta 1000" ""
# moved-js's baseline: the same change, the bundle not re-laid out
family small-cpuprofile-k5-1000ms small 5 "$SEEDS" "-format cpuprofile -sigma 0.05 -delta 1000" ""
family gomaxprocs-null-k5 gomaxprocs-null 5 "$SEEDS" "" ""
family gomaxprocs-named-null-k5 gomaxprocs-named-null 5 "$SEEDS" "" ""
family gomaxprocs-heavy-null-k5 gomaxprocs-heavy-null 5 "$SEEDS" "" ""
family gomaxprocs-null-k3 gomaxprocs-null 3 "$SEEDS" "" ""
family gomaxprocs-k5-1000ms gomaxprocs 5 "$SEEDS" "-sigma 0.05 -delta 1000" ""
# the same with --pools, which the warning on a resized pool names
family gomaxprocs-null-k5-pools gomaxprocs-null 5 "$SEEDS" "" "--pools"
family gomaxprocs-named-null-k5-pools gomaxprocs-named-null 5 "$SEEDS" "" "--pools"
family gomaxprocs-heavy-null-k5-pools gomaxprocs-heavy-null 5 "$SEEDS" "" "--pools"
family gomaxprocs-k5-1000ms-pools gomaxprocs 5 "$SEEDS" "-sigma 0.05 -delta 1000" "--pools"
# Without --metric these exit 2 with "pick a type both have with --metric"
# (a clear error, the right verdict); with the type the error names:
family mixed-folded-null-k5 null 5 "$SEEDS" "-formatafter folded" "--metric samples"
family mixed-cpuprofile-null-k5 null 5 "$SEEDS" "-formatafter cpuprofile" "--metric samples"
family unsym-null-k5 unsym-null 5 "$SEEDS" "" ""
