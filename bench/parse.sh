#!/usr/bin/env bash
# Side-by-side benchmark of `goblind parse` and the reference on the 208 MB run:
# wall time and peak RSS of each (goblind: best and median of N runs), plus the speed-up.
# usage: bench/parse.sh [RUNS]     (GOBLIND=path to the binary, default build/goblind)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
GOBLIND=${GOBLIND:-build/goblind}
SHARED=${SHARED:-../shared}
DIR=${BENCH_DIR:-/tmp/goblind-bench}
RUN="$DIR/run208"
[ -x "$GOBLIND" ] || make build >/dev/null
if [ ! -f "$RUN/torch_profile.json" ]; then
  mkdir -p "$DIR"
  python3 "$SHARED/tools/gen_run.py" "$RUN" --steps 400 --kernels-per-step 400 --cpu-ops-per-step 100 \
    --smi-samples 3000 --seed 7 2>/dev/null
fi
bytes=$(du -cb "$RUN"/trace.csv "$RUN"/torch_profile.json "$RUN"/amd_smi.csv | tail -1 | cut -f1)

# best and median wall time over RUNS runs, and the largest peak RSS: "best median kbytes"
measure() {
  local times="" rss=0
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" > "$DIR/out.json"
    read -r t m < "$DIR/time.txt"
    times="$times $t"
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk -v rss="$rss" '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)], rss}'
}
cat "$RUN"/* > /dev/null   # page cache warm for both
read -r gt gmed gm < <(measure "$GOBLIND" parse "$RUN")
cp "$DIR/out.json" "$DIR/goblind.json"
read -r rt _ rm < <(RUNS=1 measure python3 "$SHARED/tools/goblin_ref.py" "$RUN")
cp "$DIR/out.json" "$DIR/ref.json"
python3 - "$DIR/ref.json" "$DIR/goblind.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("warnings"); b.pop("warnings")
def same(x, y):
    if isinstance(x, float) or isinstance(y, float):
        return abs(x - y) <= 1e-9 * max(abs(x), abs(y))
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    return x == y
assert same(a, b), "results differ"
PY
awk -v gt="$gt" -v gmed="$gmed" -v gm="$gm" -v rt="$rt" -v rm="$rm" -v bytes="$bytes" -v runs="$RUNS" 'BEGIN {
  printf "input            %.1f MB (trace.csv + torch_profile.json + amd_smi.csv)\n", bytes / 1e6
  printf "goblind parse    %6.3f s  %7.1f MB peak RSS  (%.0f MB/s, best of %d; median %.3f s)\n", gt, gm / 1024, bytes / 1e6 / gt, runs, gmed
  printf "goblin_ref.py    %6.3f s  %7.1f MB peak RSS\n", rt, rm / 1024
  printf "speed-up         %6.1fx   (target >= 65x; %.1fx on the median)\n", rt / gt, rt / gmed
  printf "memory           %6.1f MB (target <= 32 MB)\n", gm / 1024
  printf "results          equal\n"
}'
