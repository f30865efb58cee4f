#!/usr/bin/env bash
# Crash recovery: N (default 50) trials of kill -9 at a random moment while a run is being
# ingested; after each restart PRAGMA integrity_check must be ok, nothing stored lost or
# duplicated, and at the end every run equal to `goblind parse` (tests/faults.py).
# usage: bench/crash_trials.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 tests/faults.py "${GOBLIND:-build/goblind}" "${SHARED:-../shared}" --crash-trials "${1:-50}" test_kill9_trials
