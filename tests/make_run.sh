#!/usr/bin/env bash
# `make run` builds the daemon alone and prints little: no "Entering/Leaving directory" lines, no
# compiler progress, no test program built; then serves (ARGS passes extra serve flags; here a
# free port, stopped by SIGTERM once it listens).
# usage: make_run.sh SRC_DIR BUILD_DIR
set -uo pipefail
SRC=$1 BUILD=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goblind-make-run-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
plan=$(make -n -s -C "$SRC" run BUILD="$BUILD" 2>&1)
grep -q -- '--target goblind' <<<"$plan" || { echo "FAIL make run does not build the goblind target alone: $plan"; fail=1; }
( exec make -s -C "$SRC" run BUILD="$BUILD" \
    RUN_ROOT="$tmp/runs" RUN_DB="$tmp/g.db" ARGS="--listen 127.0.0.1:0" > "$tmp/out" 2>&1 ) &
pid=$!
for _ in $(seq 1 600); do grep -q 'listening on' "$tmp/out" && break; sleep 0.5; done
daemon=$(pgrep -P "$pid" -f 'goblind serve' || true)      # make's child
[ -n "$daemon" ] && kill $daemon
wait "$pid"
out=$(cat "$tmp/out")
echo "$out"
grep -q 'listening on' <<<"$out" || { echo "FAIL make run did not start the daemon"; fail=1; }
grep -q 'Entering directory\|Leaving directory' <<<"$out" && { echo "FAIL make run prints make's directory lines"; fail=1; }
lines=$(wc -l <<<"$out")
[ "$lines" -le 8 ] || { echo "FAIL make run printed $lines lines"; fail=1; }
echo "make_run: $lines lines, $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
