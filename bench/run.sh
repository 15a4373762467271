#!/bin/sh
# bench/run.sh measures ctdiff against what users would run instead, in one
# run, and prints the Markdown tables BENCHMARKS.md shows:
#
#   1. ctdiff diff (all analyses, text report) vs go tool pprof -top
#      -diff_base on the 200,000-stack synthetic pair (internal/synth);
#   2. ctdiff convert vs go tool pprof -proto (read pprof, write pprof) on
#      the new profile of that pair;
#   3. ctdiff convert of the largest corpus DevTools trace, decompressed,
#      vs node doing nothing but JSON.parse of the same file;
#   4. ctdiff diff vs go tool pprof -top -diff_base on three runs per side
#      of the 200,000-stack pair (ctdiff's default Stats mode tests every
#      calling context; pprof sums the runs of each side);
#   5. ctdiff diff on a pair of 1.6 M-node trees (PARCS scale);
#   6. as 1, on a 200,000-stack pair from internal/synth/cmd/gopair, a
#      generator independent of internal/synth (sampled walks of a call
#      graph, call-site locations, inlined frames, four mappings).
#
# Every command runs ROUNDS times (default 5), the commands interleaved
# round by round so that a busy neighbour slows all of them alike; a row
# shows the fastest round's wall time and the median, the fastest round's
# CPU time (user + system) and the largest peak RSS of all rounds, from
# GNU time. pprof is
# the binary `go tool pprof` runs (go tool -n pprof), so the go command's
# own start-up is not counted against it.
#
# Usage: sh bench/run.sh [ROUNDS]   (WORK=/tmp/ctdiff-bench by default;
# CTDIFF_CORPUS overrides the corpus directory, ../shared/corpus)
set -eu

ROUNDS=${1:-${ROUNDS:-5}}
WORK=${WORK:-/tmp/ctdiff-bench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CTDIFF_CORPUS:-$ROOT/../shared/corpus}
TRACE_GZ=$CORPUS/devtools/devtools-web-dev-screenshot-source-ids.json.gz
TIME=/usr/bin/time # GNU time: -f and %M (peak RSS)

mkdir -p "$WORK"
cd "$ROOT"
go build -o "$WORK/ctdiff" ./cmd/ctdiff
PPROF=$(go tool -n pprof)
[ -x "$PPROF" ] || go tool pprof -h >/dev/null 2>&1 || true # builds it on first use
PPROF=$(go tool -n pprof)

# The inputs. The synthetic pairs are deterministic (seed 1).
[ -f "$WORK/big/new.pb.gz" ] || go run ./internal/synth/cmd/synth -stacks 200000 -o "$WORK/big" >/dev/null
[ -f "$WORK/huge/new.pb.gz" ] || go run ./internal/synth/cmd/synth -stacks 200000 -new-frames 7 -o "$WORK/huge" >/dev/null
[ -f "$WORK/gopair/new.pb.gz" ] || go run ./internal/synth/cmd/gopair -stacks 200000 -o "$WORK/gopair" >/dev/null
[ -f "$WORK/runs/new/3.pb.gz" ] || go run ./internal/synth/cmd/synth -stacks 200000 -runs 3 -o "$WORK/runs" >/dev/null
HAVE_TRACE=no
if [ -f "$TRACE_GZ" ] && command -v node >/dev/null; then
	HAVE_TRACE=yes
	[ -f "$WORK/trace.json" ] || gzip -dc "$TRACE_GZ" >"$WORK/trace.json"
	cat >"$WORK/parse.js" <<'EOF'
// JSON.parse of the file and nothing else: the floor for reading a trace.
const fs = require('fs');
JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
EOF
fi

# measure NAME CMD...: one run; appends "wall cpu rss_kb" to $WORK/NAME.runs.
measure() {
	name=$1
	shift
	if ! $TIME -f '%e %U %S %M' -o "$WORK/$name.time" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"; then
		echo "bench/run.sh: $name failed:" >&2
		cat "$WORK/$name.err" >&2
		exit 1
	fi
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$WORK/$name.time" >>"$WORK/$name.runs"
}

NAMES="ctdiff-diff pprof-diff ctdiff-diff-gopair pprof-diff-gopair ctdiff-convert pprof-proto ctdiff-devtools node-parse ctdiff-diff-3x3 pprof-diff-3x3 ctdiff-diff-1.6M"
for n in $NAMES; do rm -f "$WORK/$n.runs"; done
round=1
while [ "$round" -le "$ROUNDS" ]; do
	echo "bench/run.sh: round $round of $ROUNDS" >&2
	measure ctdiff-diff "$WORK/ctdiff" diff "$WORK/big/base.pb.gz" "$WORK/big/new.pb.gz" -o "$WORK/diff.txt"
	measure pprof-diff "$PPROF" -top -diff_base "$WORK/big/base.pb.gz" "$WORK/big/new.pb.gz"
	measure ctdiff-diff-gopair "$WORK/ctdiff" diff "$WORK/gopair/base.pb.gz" "$WORK/gopair/new.pb.gz" -o "$WORK/gopair.txt"
	measure pprof-diff-gopair "$PPROF" -top -diff_base "$WORK/gopair/base.pb.gz" "$WORK/gopair/new.pb.gz"
	measure ctdiff-convert "$WORK/ctdiff" convert "$WORK/big/new.pb.gz" -o "$WORK/convert.pb.gz"
	measure pprof-proto "$PPROF" -proto -output "$WORK/proto.pb.gz" "$WORK/big/new.pb.gz"
	if [ "$HAVE_TRACE" = yes ]; then
		measure ctdiff-devtools "$WORK/ctdiff" convert "$WORK/trace.json" -o "$WORK/trace.pb.gz"
		measure node-parse node "$WORK/parse.js" "$WORK/trace.json"
	fi
	measure ctdiff-diff-3x3 "$WORK/ctdiff" diff "$WORK/runs/base" "$WORK/runs/new" -o "$WORK/runs.txt"
	measure pprof-diff-3x3 "$PPROF" -top -diff_base "$WORK/runs/base/1.pb.gz" -diff_base "$WORK/runs/base/2.pb.gz" -diff_base "$WORK/runs/base/3.pb.gz" \
		"$WORK/runs/new/1.pb.gz" "$WORK/runs/new/2.pb.gz" "$WORK/runs/new/3.pb.gz"
	measure ctdiff-diff-1.6M "$WORK/ctdiff" diff "$WORK/huge/base.pb.gz" "$WORK/huge/new.pb.gz" -o "$WORK/huge.txt"
	round=$((round + 1))
done

# best NAME: "wall cpu rss_mb median_wall": the fastest round's wall and
# CPU time, the largest peak RSS of all rounds, and the median wall time.
best() {
	sort -n "$WORK/$1.runs" | awk '
		{ wall[NR] = $1; cpu[NR] = $2; if ($3 > rss) rss = $3 }
		END {
			med = (NR % 2) ? wall[(NR + 1) / 2] : (wall[NR / 2] + wall[NR / 2 + 1]) / 2
			printf "%s %s %.0f %s\n", wall[1], cpu[1], rss / 1024, med
		}'
}

# row LABEL OURS THEIRS: a table row with both sides and the ratios (of
# the best rounds, and of the medians).
row() {
	set -- "$1" $(best "$2") $(best "$3")
	awk -v l="$1" -v w1="$2" -v c1="$3" -v m1="$4" -v d1="$5" -v w2="$6" -v c2="$7" -v m2="$8" -v d2="$9" 'BEGIN {
		printf "| %s | %.2f s (%.2f s) | %.2f s | %d MB | %.2f s (%.2f s) | %.2f s | %d MB | %.1f× (%.1f×) | %.2f× |\n",
			l, w1, d1, c1, m1, w2, d2, c2, m2, (w1 > 0 ? w2 / w1 : 0), (d1 > 0 ? d2 / d1 : 0), (m2 > 0 ? m1 / m2 : 0)
	}'
}

nodes() { "$WORK/ctdiff" cct "$1" 2>/dev/null | sed -n 's/.*; \([0-9]*\) nodes.*/\1/p'; }

echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') with bench/run.sh ($ROUNDS rounds): $(nproc) cores ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)), $(free -g | awk '/^Mem:/ { print $2 }') GiB,"
echo "$(go version | cut -d' ' -f3-4), node $(node --version 2>/dev/null || echo absent), load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Inputs: internal/synth seed 1, 200,000 stacks: $(nodes "$WORK/big/base.pb.gz") / $(nodes "$WORK/big/new.pb.gz") tree nodes;"
echo "-new-frames 7: $(nodes "$WORK/huge/base.pb.gz") / $(nodes "$WORK/huge/new.pb.gz") nodes;"
echo "gopair seed 1, 200,000 stacks: $(nodes "$WORK/gopair/base.pb.gz") / $(nodes "$WORK/gopair/new.pb.gz") nodes."
echo
echo "Wall times: best round (median); CPU: user + system of the best round; peak RSS: largest of all rounds."
echo
echo "| task | ctdiff wall | ctdiff CPU | ctdiff peak RSS | other wall | other CPU | other peak RSS | other/ctdiff time | ctdiff/other memory |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
row "diff vs pprof -top -diff_base (200k stacks)" ctdiff-diff pprof-diff
row "diff vs pprof -top -diff_base (gopair, 200k stacks)" ctdiff-diff-gopair pprof-diff-gopair
row "convert vs pprof -proto (200k stacks)" ctdiff-convert pprof-proto
row "diff vs pprof -top -diff_base (3 runs per side, 200k stacks each)" ctdiff-diff-3x3 pprof-diff-3x3
if [ "$HAVE_TRACE" = yes ]; then
	row "convert DevTools trace vs node JSON.parse ($(($(wc -c <"$WORK/trace.json") / 1000000)) MB)" ctdiff-devtools node-parse
fi
set -- $(best ctdiff-diff-1.6M)
echo
echo "ctdiff diff on the 1.6 M-node pair: $1 s wall (median $4 s), $2 s CPU, $3 MB peak RSS."
