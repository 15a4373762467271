#!/usr/bin/env bash
# Peak RSS and time of ctdiff on the hostile inputs that stress memory by
# sample count, stack depth and line length (README, "Limits and errors").
#
#   bench/hostile-mem.sh [DIR] [CTDIFF]
#
# DIR holds the inputs (written there by tools/hostile/mkhostile when
# missing); CTDIFF is the binary to measure (built from this tree when not
# given). Each input is read by `ctdiff cct` at GOMAXPROCS=2 and 8; one line
# per run: input, GOMAXPROCS, exit code, peak RSS in MB, elapsed and CPU
# (user + system) seconds, and the last line of stderr. ONLY=REGEX measures
# the inputs whose names match (and writes only those); CMD=convert runs `ctdiff convert` (which
# keeps every sample with its timestamp) instead of `ctdiff cct` (which
# merges a thread's samples of one stack as it reads them).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-/tmp/ctdiff-hostile}
bin=${2:-}
if [[ -z $bin ]]; then
	bin=$(mktemp -d)/ctdiff
	go build -o "$bin" ./cmd/ctdiff
fi
inputs=(
	samples-30m.cpuprofile.gz samples-5m.perfView.xml.zip samples-20m.perfView.xml.zip
	rows-3m.wpa.csv.gz samples-3m.perf.txt.gz sampledprofile-1m.xperf.txt.gz
	deep-1m.folded.gz deep-1m.perf.txt.gz deep-1m.cpuprofile.gz deep-1.2m.perf.txt.gz
	comb-50k.cpuprofile.gz comb-16k-pad60m.perfView.xml.gz comb-16k-pad60m.cpuprofile.gz
	line-1g.perf.txt.gz field-600m.wpa.csv.gz name-200m.perf.txt.gz
)
mkdir -p "$dir"
missing=()
for f in "${inputs[@]}"; do
	if [[ $f =~ ${ONLY:-.} && ! -e $dir/$f ]]; then
		missing+=("$f")
	fi
done
if ((${#missing[@]} > 0)); then
	only=$(printf '%s\n' "${missing[@]}" | sed 's/[.]/[.]/g' | paste -sd'|')
	go run ./tools/hostile/mkhostile -o "$dir" -only "^($only)\$"
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-32s %5s %4s %8s %8s %8s  %s\n' input procs exit peak_MB seconds cpu_s stderr
cmd=${CMD:-cct}
for f in "${inputs[@]}"; do
	[[ $f =~ ${ONLY:-.} ]] || continue
	for procs in 2 8; do
		set +e
		if [[ $cmd == convert ]]; then
			GOMAXPROCS=$procs /usr/bin/time -v "$bin" convert "$dir/$f" -o "$out/out.pb.gz" 2>"$out/err" >/dev/null
		else
			GOMAXPROCS=$procs /usr/bin/time -v "$bin" cct "$dir/$f" --format json -o "$out/tree.json" 2>"$out/err" >/dev/null
		fi
		code=$?
		set -e
		rss=$(awk '/Maximum resident set size/ {printf "%.0f", $NF/1024}' "$out/err")
		secs=$(awk '/Elapsed \(wall clock\)/ {n=split($NF, t, ":"); s=0; for (i=1; i<=n; i++) s=s*60+t[i]; printf "%.1f", s}' "$out/err")
		cpu=$(awk '/User time|System time/ {s+=$NF} END {printf "%.1f", s}' "$out/err")
		msg=$(grep -v '^\s' "$out/err" | grep -v 'Command exited' | tail -1 | cut -c1-110 || true)
		printf '%-32s %5s %4s %8s %8s %8s  %s\n' "$f" "$procs" "$code" "$rss" "$secs" "$cpu" "$msg"
	done
done
