#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 10s), one
# at a time: go test -fuzz takes a single target. Targets are found with
# go test -list, so a new FuzzXxx joins without editing this script.
# A crash fails the script; go test saves the input under the package's
# testdata/fuzz/FuzzXxx/, where, once fixed, it stays as a regression seed.
#
#   .ci/fuzz.sh                    # every target, 10 s each
#   FUZZTIME=60s .ci/fuzz.sh ./convert FuzzRead   # one package, targets matching
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-10s}"
# Go minimizes every new interesting input for up to 60 s by default, and
# reports no execs meanwhile: with inputs of several KiB (gzipped profiles)
# a 10 s run would do nothing else. Crashers are still saved, less reduced.
minimizetime="${FUZZMINIMIZETIME:-5s}"
pkgs="${1:-./...}"
match="${2:-.}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

n=0
for pkg in $(go list "$pkgs"); do
  if ! list=$(go test -list '^Fuzz' "$pkg" 2>&1); then
    echo "listing the fuzz targets of $pkg failed:"; echo "$list"; exit 1
  fi
  for target in $(echo "$list" | grep '^Fuzz' | grep -E -- "$match" || true); do
    printf '== %s %s (%s): ' "${pkg#github.com/ctdiff/ctdiff/}" "$target" "$fuzztime"
    # Go 1.26's fuzzing coordinator can fail a target with a bare "context
    # deadline exceeded" when -fuzztime runs out while a worker is busy,
    # having found nothing (go.dev/issue/75804, fixed in Go 1.27): such a
    # run wrote no failing input, and is run again, at most twice. Any
    # other failure, or a written input, fails the script.
    for attempt in 1 2 3; do
      if go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" >"$log" 2>&1; then
        break
      fi
      if [ "$attempt" -lt 3 ] && grep -q '^    context deadline exceeded$' "$log" && ! grep -q 'Failing input written to' "$log"; then
        printf '(go.dev/issue/75804, again) '
        continue
      fi
      echo FAIL; cat "$log"; exit 1
    done
    # The last progress line holds the totals: "execs: N (R/sec), new interesting: ..."
    grep -o 'execs: [0-9]*' "$log" | tail -1 || echo "no execs reported"
    n=$((n + 1))
  done
done
echo "== fuzzed $n targets for $fuzztime each"
