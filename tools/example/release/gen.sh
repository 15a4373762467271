#!/bin/sh
# Regenerates testdata/release, the worked example of `ctdiff report`: real
# profiles of the release example's components, three runs of the old and of
# the new version each, alternating between the versions so a change in the
# machine's load hits both alike.
#
#	sh tools/example/release/gen.sh [runs]     # default 3 runs per version
#
# web (Node.js, node --cpu-prof: .cpuprofile), search (the same script's
# search page) and billing (Java, JDK Flight Recorder: .jfr); the Go
# component, api, is testdata/example (go run ./tools/example/gen).
# Files are gzipped (ctdiff reads gzip by its magic bytes) with -n, so a
# regeneration changes them only by what the profiles say.
set -eu
cd "$(dirname "$0")/../../.."
src=tools/example/release
out=testdata/release
runs=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rm -rf "$out/web" "$out/search" "$out/billing"
for c in web search billing; do
	mkdir -p "$out/$c/old" "$out/$c/new"
done
javac -d "$tmp/classes" "$src"/billing/com/example/billing/*.java

i=1
while [ "$i" -le "$runs" ]; do
	for side in old new; do
		for page in listing search; do
			c=web
			[ "$page" = search ] && c=search
			node --cpu-prof --cpu-prof-dir="$tmp" --cpu-prof-name="$c-$side-$i.cpuprofile" \
				"$src/web/storefront.js" "$side" "$page" >/dev/null
			gzip -9 -n -c "$tmp/$c-$side-$i.cpuprofile" >"$out/$c/$side/run$i.cpuprofile.gz"
		done
		java -XX:StartFlightRecording=filename="$tmp/billing-$side-$i.jfr",settings="$src/billing/cpu.jfc" \
			-cp "$tmp/classes" com.example.billing.BillingJob "$side" 1000 >/dev/null
		gzip -9 -n -c "$tmp/billing-$side-$i.jfr" >"$out/billing/$side/run$i.jfr.gz"
	done
	i=$((i + 1))
done
du -sh "$out"/*/old "$out"/*/new
