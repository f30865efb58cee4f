#!/usr/bin/env bash
# `goblind analyze` beside `goblind parse` on the 208 MB generated run (the run of
# bench/parse.sh), and the daemon's ingest (`goblind parse --analysis`: RunMetrics and the
# analysis document from one read of each file); then the same three on a 1 GB generated run.
# Wall time and peak RSS of each, best and median of N runs.
# Targets: analyze within 1.5x of parse's time, <= 64 MB peak RSS, on both runs.
# usage: bench/analyze.sh [RUNS]     (GOBLIND=path to the binary, default build/goblind;
#        SKIP_1G=1 skips the 1 GB run, whose first generation takes a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
GOBLIND=${GOBLIND:-build/goblind}
SHARED=${SHARED:-../shared}
DIR=${BENCH_DIR:-/tmp/goblind-bench}
RUN="$DIR/run208"
BIG="$DIR/run1g"
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
# one run directory: "label" "dir"
bench_run() {
  local label=$1 run=$2
  local bytes
  bytes=$(du -cb "$run"/trace.csv "$run"/torch_profile.json "$run"/amd_smi.csv | tail -1 | cut -f1)
  cat "$run"/* > /dev/null   # page cache warm for all
  read -r pt pmed pm < <(measure "$GOBLIND" parse "$run")
  read -r at amed am < <(measure "$GOBLIND" analyze "$run")
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['sources'], 'no sources'" "$DIR/out.json"
  sections=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$DIR/out.json")
  read -r it imed im < <(measure "$GOBLIND" parse "$run" --analysis "$DIR/ingest_analysis.json")
  awk -v label="$label" -v pt="$pt" -v pmed="$pmed" -v pm="$pm" -v at="$at" -v amed="$amed" -v am="$am" \
      -v it="$it" -v imed="$imed" -v im="$im" -v bytes="$bytes" -v runs="$RUNS" -v sections="$sections" 'BEGIN {
    printf "%s: input %.1f MB (trace.csv + torch_profile.json + amd_smi.csv)\n", label, bytes / 1e6
    printf "goblind parse    %6.3f s  %7.1f MB peak RSS  (best of %d; median %.3f s)\n", pt, pm / 1024, runs, pmed
    printf "goblind analyze  %6.3f s  %7.1f MB peak RSS  (best of %d; median %.3f s; %d document keys)\n", at, am / 1024, runs, amed, sections
    printf "ingest (one read)%6.3f s  %7.1f MB peak RSS  (goblind parse --analysis; best of %d; median %.3f s)\n", it, im / 1024, runs, imed
    printf "analyze / parse  %6.2fx   (target <= 1.5x)\n", at / pt
    printf "memory           %6.1f MB (target <= 64 MB)\n\n", (am > im ? am : im) / 1024
  }'
}
bench_run "208 MB run" "$RUN"
if [ -z "${SKIP_1G:-}" ]; then
  if [ ! -f "$BIG/torch_profile.json" ]; then
    python3 "$SHARED/tools/gen_run.py" "$BIG" --steps 2000 --kernels-per-step 400 --cpu-ops-per-step 100 \
      --smi-samples 15000 --seed 7 >/dev/null 2>&1
  fi
  bench_run "1 GB run" "$BIG"
fi
