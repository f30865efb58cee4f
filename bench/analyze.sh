#!/usr/bin/env bash
# `goblind analyze` beside `goblind parse` on the 208 MB generated run (the run of
# bench/parse.sh): wall time and peak RSS of each, best and median of N runs.
# Targets: analyze within 1.5x of parse's time, <= 64 MB peak RSS.
# usage: bench/analyze.sh [RUNS]     (GOBLIND=path to the binary, default build/goblind)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
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
read -r pt pmed pm < <(measure "$GOBLIND" parse "$RUN")
read -r at amed am < <(measure "$GOBLIND" analyze "$RUN")
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['sources'], 'no sources'" "$DIR/out.json"
sections=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$DIR/out.json")
awk -v pt="$pt" -v pmed="$pmed" -v pm="$pm" -v at="$at" -v amed="$amed" -v am="$am" -v bytes="$bytes" -v runs="$RUNS" \
    -v sections="$sections" 'BEGIN {
  printf "input            %.1f MB (trace.csv + torch_profile.json + amd_smi.csv)\n", bytes / 1e6
  printf "goblind parse    %6.3f s  %7.1f MB peak RSS  (best of %d; median %.3f s)\n", pt, pm / 1024, runs, pmed
  printf "goblind analyze  %6.3f s  %7.1f MB peak RSS  (best of %d; median %.3f s; %d document keys)\n", at, am / 1024, runs, amed, sections
  printf "analyze / parse  %6.2fx   (target <= 1.5x)\n", at / pt
  printf "memory           %6.1f MB (target <= 64 MB)\n", am / 1024
}'
