#!/usr/bin/env bash
# Parses a run while gen_run.py --live is still writing it (growing CSVs, half-written
# JSON): once an artefact exists goblind must always exit 0 with valid JSON, and once the writer is done the
# result must equal the reference.
set -euo pipefail
GOBLIND=$1 SHARED=$2
PYTHON=${3:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goblind-live-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
run="$tmp/run"
"$PYTHON" "$SHARED/tools/gen_run.py" "$run" --steps 30 --kernels-per-step 200 --cpu-ops-per-step 30 \
  --smi-samples 200 --live 3 --seed 5 2>/dev/null &
writer=$!
parses=0
while kill -0 "$writer" 2>/dev/null; do
  # a directory with no artefact yet is exit 3 by design (README: nothing to measure); once the
  # writer has created one (it never removes any), every parse must exit 0
  if compgen -G "$run/trace.csv" >/dev/null || compgen -G "$run/torch_profile.json*" >/dev/null ||
     compgen -G "$run/amd_smi.csv" >/dev/null; then
    "$GOBLIND" parse "$run" --indent 0 > "$tmp/out.json" || { echo "FAIL: goblind exited $? mid-write"; exit 1; }
    "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out.json" \
      || { echo "FAIL: invalid JSON mid-write"; cat "$tmp/out.json"; exit 1; }
    parses=$((parses + 1))
  fi
  sleep 0.05
done
wait "$writer"
"$GOBLIND" parse "$run" > "$tmp/final.json"
"$PYTHON" "$SHARED/tools/goblin_ref.py" "$run" > "$tmp/ref.json"
"$PYTHON" - "$tmp/ref.json" "$tmp/final.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("warnings"); b.pop("warnings")
def same(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return x == y or abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    return x == y
sys.exit(0 if same(a, b) else "final parse differs from the reference")
PY
echo "live_parse: $parses parses during the write, 1 passed, 0 failed"
