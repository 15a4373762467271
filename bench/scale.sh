#!/bin/sh
# bench/scale.sh measures ctdiff at scale (the cases below): ctdiff
# binaries against each other and against what users would run instead,
# in the same rounds.
#
#   sh bench/scale.sh [-r ROUNDS] [-m MODE] CTDIFF... -- CASE...
#
# CTDIFF: one or more ctdiff binaries (say, the start of a change and its
# end); each runs every case. CASE: synth (200,000-stack synth pair, 1 + 1),
# gopair (200,000 stacks from the independent generator), 1.6M (1.6 M-stack
# synth pair), 100 (100 + 100 runs of 20,000 stacks), 1000 (1,000 + 1,000),
# dev (a 515 MB DevTools trace), deep (a 525 MB trace 60-100 frames deep),
# report (`ctdiff report` of a 238 MB JSON result), perf (an 877 MB
# `perf script`). The alternatives: go tool pprof -top -diff_base (synth,
# gopair; for 100, pprof -proto merges of each side, then -diff_base),
# node's bare JSON.parse (dev, deep, report), a mawk stack-collapsing
# script (perf).
#
# MODE says what memory a command meets, which decides much of the
# system time on a virtual machine whose host reclaims the memory a guest
# frees (measured on such a machine: 2-2.5 ms per MB first
# touched when cold, ~0.1 warm):
#   interleaved  the commands one after the other, round by round (default);
#   cold         5 s of idle before each command;
#   warm         each command run twice back to back, the second timed.
#
# Output: one line per command, "CASE TOOL wall user sys maxrss_kb", then a
# summary per case and tool (ranges over the rounds). Inputs are generated
# under WORK (default /tmp/ctdiff-scale) on first use, deterministically.
set -eu

ROUNDS=3
MODE=interleaved
while [ $# -gt 0 ]; do
	case $1 in
	-r) ROUNDS=$2; shift 2 ;;
	-m) MODE=$2; shift 2 ;;
	*) break ;;
	esac
done
BINS=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	BINS="$BINS $(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
	shift
done
[ $# -gt 0 ] && shift
CASES=$*
if [ -z "$BINS" ] || [ -z "$CASES" ]; then
	sed -n '2,8p' "$0" >&2
	exit 2
fi
case $MODE in interleaved | cold | warm) ;; *) echo "bench/scale.sh: unknown mode $MODE" >&2; exit 2 ;; esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-/tmp/ctdiff-scale}
mkdir -p "$WORK"
cd "$ROOT"
PPROF=$(go tool -n pprof)
[ -x "$PPROF" ] || go tool pprof -h >/dev/null 2>&1 || true
PPROF=$(go tool -n pprof)
TIME=/usr/bin/time # GNU time: -f and %M

# The inputs, each made once.
need() {
	case $1 in
	synth) [ -f "$WORK/synth/new.pb.gz" ] || go run ./tools/synth/cmd/synth -stacks 200000 -o "$WORK/synth" >/dev/null ;;
	gopair) [ -f "$WORK/gopair/new.pb.gz" ] || go run ./tools/synth/cmd/gopair -stacks 200000 -o "$WORK/gopair" >/dev/null ;;
	1.6M) [ -f "$WORK/s1600k/new.pb.gz" ] || go run ./tools/synth/cmd/synth -stacks 1600000 -o "$WORK/s1600k" >/dev/null ;;
	100) [ -f "$WORK/syn100/new/100.pb.gz" ] || go run ./tools/synth/cmd/synth -stacks 20000 -runs 100 -o "$WORK/syn100" >/dev/null ;;
	1000) [ -f "$WORK/syn1000/new/1000.pb.gz" ] || go run ./tools/synth/cmd/synth -stacks 20000 -runs 1000 -o "$WORK/syn1000" >/dev/null ;;
	dev) [ -f "$WORK/dev500.json" ] || go run ./tools/synth/cmd/devtrace -o "$WORK/dev500.json" >/dev/null ;;
	deep) [ -f "$WORK/deep.json" ] || go run ./tools/synth/cmd/devtrace -min-depth 60 -max-depth 100 -o "$WORK/deep.json" >/dev/null ;;
	report)
		need synth
		[ -f "$WORK/r.json" ] || go run ./cmd/ctdiff diff "$WORK/synth/base.pb.gz" "$WORK/synth/new.pb.gz" --aggregate intersect --format json -o "$WORK/r.json" 2>/dev/null
		;;
	perf) [ -f "$WORK/perf.txt" ] || go run ./tools/synth/cmd/perfscript -o "$WORK/perf.txt" >/dev/null ;;
	*) echo "bench/scale.sh: unknown case $1" >&2; exit 2 ;;
	esac
}
for c in $CASES; do need "$c"; done
cat >"$WORK/parse.js" <<'EOF'
// JSON.parse of the file and nothing else: the floor for reading it.
JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
EOF
cat >"$WORK/collapse.awk" <<'EOF'
# perf script to folded stacks: what stackcollapse-perf.pl does, in awk.
/^[^ \t#]/ { n = 0; comm = $1; next }
/^[ \t]/ { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); f[++n] = sym; next }
/^$/ { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++ }; n = 0; next }
END { for (s in c) print s, c[s] }
EOF

# pair CASE: the directory of a 1 + 1 case's pair.
pair() {
	case $1 in
	1.6M) echo "$WORK/s1600k" ;;
	*) echo "$WORK/$1" ;;
	esac
}

LOG=$WORK/scale.log
: >"$LOG"
# t CASE TOOL CMD...: one measured command, as MODE says.
t() {
	name="$1 $2"
	shift 2
	case $MODE in
	cold) sleep 5 ;;
	warm) "$@" >/dev/null 2>&1 || true ;;
	esac
	if ! $TIME -f "$name %e %U %S %M" -o "$WORK/t.out" "$@" >/dev/null 2>"$WORK/err.out"; then
		echo "bench/scale.sh: $name failed:" >&2
		cat "$WORK/err.out" >&2
		exit 1
	fi
	tee -a "$LOG" <"$WORK/t.out"
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	for c in $CASES; do
		i=0
		for b in $BINS; do
			i=$((i + 1))
			case $c in
			synth | gopair | 1.6M) t "$c" "ctdiff$i" "$b" diff "$(pair "$c")/base.pb.gz" "$(pair "$c")/new.pb.gz" -o "$WORK/out.txt" ;;
			100 | 1000) t "$c" "ctdiff$i" "$b" diff "$WORK/syn$c/base" "$WORK/syn$c/new" -o "$WORK/out.txt" ;;
			dev) t "$c" "ctdiff$i" "$b" convert "$WORK/dev500.json" -o "$WORK/out.pb.gz" ;;
			deep) t "$c" "ctdiff$i" "$b" convert "$WORK/deep.json" -o "$WORK/out.pb.gz" ;;
			report) t "$c" "ctdiff$i" "$b" report "$WORK/r.json" -o "$WORK/out.txt" ;;
			perf) t "$c" "ctdiff$i" "$b" convert "$WORK/perf.txt" -o "$WORK/out.pb.gz" ;;
			esac
		done
		case $c in
		synth | gopair) t "$c" pprof "$PPROF" -top -diff_base "$WORK/$c/base.pb.gz" "$WORK/$c/new.pb.gz" ;;
		100)
			t "$c" pprof-merge-base sh -c "'$PPROF' -proto '$WORK'/syn100/base/*.pb.gz >'$WORK/mb.pb.gz'"
			t "$c" pprof-merge-new sh -c "'$PPROF' -proto '$WORK'/syn100/new/*.pb.gz >'$WORK/mn.pb.gz'"
			t "$c" pprof-diff "$PPROF" -top -diff_base "$WORK/mb.pb.gz" "$WORK/mn.pb.gz"
			;;
		dev) t "$c" node node "$WORK/parse.js" "$WORK/dev500.json" ;;
		deep) t "$c" node node "$WORK/parse.js" "$WORK/deep.json" ;;
		report) t "$c" node node "$WORK/parse.js" "$WORK/r.json" ;;
		perf) t "$c" mawk mawk -f "$WORK/collapse.awk" "$WORK/perf.txt" ;;
		esac
	done
	r=$((r + 1))
done

echo
echo "# $MODE, $ROUNDS rounds: wall, CPU (user + sys), sys, peak RSS; ranges over the rounds"
awk '{
	k = $1 " " $2; w = $3; c = $4 + $5; s = $5; m = $6 / 1000
	if (!(k in wl)) { ord[++n] = k; wl[k] = wh[k] = w; cl[k] = ch[k] = c; sl[k] = sh[k] = s; ml[k] = mh[k] = m }
	if (w < wl[k]) wl[k] = w; if (w > wh[k]) wh[k] = w
	if (c < cl[k]) cl[k] = c; if (c > ch[k]) ch[k] = c
	if (s < sl[k]) sl[k] = s; if (s > sh[k]) sh[k] = s
	if (m < ml[k]) ml[k] = m; if (m > mh[k]) mh[k] = m
}
END { for (i = 1; i <= n; i++) { k = ord[i]; printf "%-24s %6.2f-%6.2f s  %6.2f-%6.2f s CPU  %5.2f-%5.2f s sys  %6.0f-%6.0f MB\n", k, wl[k], wh[k], cl[k], ch[k], sl[k], sh[k], ml[k], mh[k] } }' "$LOG"
