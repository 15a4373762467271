#!/usr/bin/env bash
# run.sh OUT [RUNS]: builds every case of cases.tsv and records RUNS profiles
# a side (default 3), alternating before and after runs, into
# OUT/<case>/old/runN.<ext> and OUT/<case>/new/runN.<ext> (.pb.gz for Go,
# .cpuprofile for JavaScript, .jfr for Java). Each run's process CPU time
# (user and system seconds) goes to OUT/<case>/cpu.tsv.
#
# CASES="regexp-email js-json" run.sh OUT records only the cases named.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: run.sh OUT [RUNS]" >&2
	exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
RUNS=${2:-3}
if ! [[ $RUNS =~ ^[1-9][0-9]*$ ]]; then
	echo "run.sh: RUNS must be a positive integer, not $RUNS" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$OUT/.build
mkdir -p "$BUILD"

# cpu_of PID: user and system seconds of a running process, from /proc.
cpu_of() {
	local tck
	tck=$(getconf CLK_TCK)
	awk -v t="$tck" '{ printf "%.2f\t%.2f\n", $14 / t, $15 / t }' "/proc/$1/stat"
}

# timed CPUFILE SIDE RUN COMMAND...: runs the command, appending its CPU time.
timed() {
	local cpu=$1 side=$2 run=$3
	shift 3
	/usr/bin/time -f "%U	%S" -o "$BUILD/time.$$" "$@"
	printf '%s\t%s\t%s\n' "$side" "$run" "$(cat "$BUILD/time.$$")" >>"$cpu"
}

# build_go CASE KIND: stages the case's sources so that the changed file has
# the same path and name (change.go) on both sides, as an edited file would,
# and builds one binary a side.
build_go() {
	local c=$1 kind=$2 src=$BUILD/$1/src side tags
	for side in old new; do
		rm -rf "$src"
		mkdir -p "$src" "$BUILD/$c/$side"
		find "$HERE/cases/$c" -maxdepth 1 -name '*.go' ! -name 'change_*.go' -exec cp {} "$src/" \;
		if [ -d "$HERE/cases/$c/load" ]; then
			cp -r "$HERE/cases/$c/load" "$src/load"
		fi
		tags=
		if [ "$kind" = change ]; then
			if [ "$side" = old ]; then
				cp "$HERE/cases/$c/change_before.go" "$src/change.go"
			else
				cp "$HERE/cases/$c/change_after.go" "$src/change.go"
				tags="-tags after"
			fi
		fi
		printf 'module realprogs/%s\n\ngo 1.26\n' "$c" >"$src/go.mod"
		# shellcheck disable=SC2086
		(cd "$src" && go build $tags -o "$BUILD/$c/$side/prog" .)
		if [ -d "$src/load" ]; then
			(cd "$src" && go build -o "$BUILD/$c/load" ./load)
		fi
	done
}

# build_java CASE KIND: compiles Main.java with the side's version of the
# changed class into a directory a side.
build_java() {
	local c=$1 kind=$2 side dir
	for side in old new; do
		rm -rf "${BUILD:?}/$c/$side"
		mkdir -p "$BUILD/$c/$side"
		dir=before
		[ "$side" = new ] && dir=after
		if [ "$kind" = change ]; then
			javac -d "$BUILD/$c/$side" "$HERE/cases/$c/Main.java" "$HERE/cases/$c/$dir/"*.java
		else
			javac -d "$BUILD/$c/$side" "$HERE/cases/$c/Main.java"
		fi
	done
}

# run_go CASE SIDE N: one profiled run of a Go program.
run_go() {
	local c=$1 side=$2 n=$3
	if [ -x "$BUILD/$c/load" ]; then
		run_service "$c" "$side" "$n"
		return
	fi
	timed "$OUT/$c/cpu.tsv" "$side" "$n" "$BUILD/$c/$side/prog" -cpuprofile "$OUT/$c/$side/run$n.pb.gz" >/dev/null
}

# run_service CASE SIDE N: starts the service, drives it from the load
# process, which fetches the profile over HTTP, and stops the service.
run_service() {
	local c=$1 side=$2 n=$3 addr=$BUILD/$1/addr pid
	rm -f "$addr"
	"$BUILD/$c/$side/prog" -addrfile "$addr" 2>>"$BUILD/$c/service.log" &
	pid=$!
	for _ in $(seq 100); do
		[ -s "$addr" ] && break
		sleep 0.1
	done
	if [ ! -s "$addr" ]; then
		kill "$pid" 2>/dev/null || true
		echo "run.sh: $c: the service did not start" >&2
		exit 1
	fi
	"$BUILD/$c/load" -addr "$(cat "$addr")" -cpuprofile "$OUT/$c/$side/run$n.pb.gz" >/dev/null
	printf '%s\t%s\t%s\n' "$side" "$n" "$(cpu_of "$pid")" >>"$OUT/$c/cpu.tsv"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

# run_js CASE KIND SIDE N: one profiled run of a Node.js script. The changed
# module is copied to change.js in one staging directory, so that both sides
# load it from the same URL.
run_js() {
	local c=$1 kind=$2 side=$3 n=$4 src=$BUILD/$1/src
	mkdir -p "$src"
	cp "$HERE/cases/$c/main.js" "$src/main.js"
	if [ "$kind" = change ]; then
		if [ "$side" = old ]; then
			cp "$HERE/cases/$c/change_before.js" "$src/change.js"
		else
			cp "$HERE/cases/$c/change_after.js" "$src/change.js"
		fi
	fi
	timed "$OUT/$c/cpu.tsv" "$side" "$n" node --cpu-prof --cpu-prof-dir="$OUT/$c/$side" \
		--cpu-prof-name="run$n.cpuprofile" "$src/main.js" >/dev/null
}

# run_java CASE SIDE N: one run recorded with JFR's profile settings.
run_java() {
	local c=$1 side=$2 n=$3
	timed "$OUT/$c/cpu.tsv" "$side" "$n" java \
		-XX:StartFlightRecording=filename="$OUT/$c/$side/run$n.jfr",settings=profile \
		-cp "$BUILD/$c/$side" Main >/dev/null 2>>"$BUILD/$c/jvm.log"
}

# The list is read whole first, so that editing cases.tsv during a recording
# does not shift the lines still to be read.
mapfile -t rows <"$HERE/cases.tsv"
start=$(date +%s)
for line in "${rows[@]}"; do
	IFS=$'\t' read -r name lang kind _ <<<"$line"
	case $name in '#'* | '') continue ;; esac
	if [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]]; then
		continue
	fi
	echo "== $name ($lang, $kind)" >&2
	rm -rf "${OUT:?}/$name"
	mkdir -p "$OUT/$name/old" "$OUT/$name/new" "$BUILD/$name"
	printf 'side\trun\tuser_s\tsys_s\n' >"$OUT/$name/cpu.tsv"
	case $lang in
	go) build_go "$name" "$kind" ;;
	java) build_java "$name" "$kind" ;;
	js) ;;
	*)
		echo "run.sh: $name: unknown language $lang" >&2
		exit 2
		;;
	esac
	for n in $(seq "$RUNS"); do
		for side in old new; do
			case $lang in
			go) run_go "$name" "$side" "$n" ;;
			js) run_js "$name" "$kind" "$side" "$n" ;;
			java) run_java "$name" "$side" "$n" ;;
			esac
		done
	done
done
rm -f "$BUILD/time.$$"
echo "recorded in $OUT in $(($(date +%s) - start)) s" >&2
