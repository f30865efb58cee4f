#!/usr/bin/env bash
# `goblind analyze` beside `goblind parse` on the 208 MB generated run (the run of
# bench/parse.sh), and the daemon's ingest (`goblind parse --analysis`: RunMetrics and the
# analysis document from one read of each file); then the same three on a 1 GB generated run.
# Wall time, CPU (user + sys) and peak RSS of each, best and median of N runs, the three
# commands alternating run by run.
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

# One timed run of a command, appended to $DIR/times.<label>: "wall cpu kbytes" (cpu = user + sys;
# wall in seconds to 0.1 ms, including the start of /usr/bin/time itself, ~1 ms for every command).
timed() {
  local label=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%e %U %S %M" -o "$DIR/time.txt" "$@" > "$DIR/out.$label.json" 2> "$DIR/err.$label.txt"
  t1=$(date +%s%N)
  # wall time from the nanosecond clock (time's %e has 10 ms steps, 7 % of parse's 0.14 s)
  awk -v ns=$((t1 - t0)) '{printf "%.4f %.2f %s\n", ns / 1e9, $2 + $3, $4}' "$DIR/time.txt" >> "$DIR/times.$label"
}
# best and median wall time, median CPU and the largest peak RSS of one label's runs:
# "best median cpu_median kbytes"
summary() {
  local cpu
  cpu=$(cut -d' ' -f2 "$DIR/times.$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  sort -g "$DIR/times.$1" | awk -v cpu="$cpu" '{w[NR]=$1; if ($3 > m) m = $3}
    END {print w[1], w[int((NR+1)/2)], cpu, m}'
}
# one run directory: "label" "dir". The three commands alternate run by run (parse, analyze,
# ingest, parse, ...), so that a slow spell of the shared machine falls on all three alike.
bench_run() {
  local label=$1 run=$2
  local bytes
  bytes=$(du -cb "$run"/trace.csv "$run"/torch_profile.json "$run"/amd_smi.csv | tail -1 | cut -f1)
  cat "$run"/* > /dev/null   # page cache warm for all
  rm -f "$DIR"/times.parse "$DIR"/times.analyze "$DIR"/times.ingest
  for _ in $(seq "$RUNS"); do
    timed parse "$GOBLIND" parse "$run"
    timed analyze "$GOBLIND" analyze "$run"
    timed ingest "$GOBLIND" parse "$run" --analysis "$DIR/ingest_analysis.json"
  done
  read -r pt pmed pc pm < <(summary parse)
  read -r at amed ac am < <(summary analyze)
  read -r it imed ic im < <(summary ingest)
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['sources'], 'no sources'" "$DIR/out.analyze.json"
  sections=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$DIR/out.analyze.json")
  awk -v label="$label" -v pt="$pt" -v pmed="$pmed" -v pm="$pm" -v at="$at" -v amed="$amed" -v am="$am" \
      -v it="$it" -v imed="$imed" -v im="$im" -v pc="$pc" -v ac="$ac" -v ic="$ic" -v bytes="$bytes" \
      -v runs="$RUNS" -v sections="$sections" 'BEGIN {
    printf "%s: input %.1f MB (trace.csv + torch_profile.json + amd_smi.csv)\n", label, bytes / 1e6
    printf "goblind parse    %6.3f s  %7.1f MB peak RSS  (best of %d; median %.3f s; CPU %.2f s)\n", pt, pm / 1024, runs, pmed, pc
    printf "goblind analyze  %6.3f s  %7.1f MB peak RSS  (best of %d; median %.3f s; CPU %.2f s; %d document keys)\n", at, am / 1024, runs, amed, ac, sections
    printf "ingest (one read)%6.3f s  %7.1f MB peak RSS  (goblind parse --analysis; best of %d; median %.3f s; CPU %.2f s)\n", it, im / 1024, runs, imed, ic
    printf "analyze / parse  %6.2fx   (best against best; target <= 1.3x; medians %.2fx; CPU %.2fx)\n", at / pt, amed / pmed, ac / pc
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
