#!/usr/bin/env bash
# Load: wrk against GET /runs/<id>/metrics (64 connections, DURATION s), side by side with
# bench/bare_server returning the same bytes from memory (the machine's ceiling); then the
# same while a ~200 MB run is ingested; then GET /runs?limit=100 with RUNS stored runs.
# usage: bench/load.sh [DURATION=30] [RUNS=10000]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR=${1:-30}
NRUNS=${2:-10000}
SHARED=${SHARED:-../shared}
B=${BUILD:-build}
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)"; exit 1; }
cmake --build $B --target goblind bare_server -j 2 >/dev/null
tmp=$(mktemp -d /tmp/goblind-load-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/runs"
python3 "$SHARED/tools/gen_run.py" "$tmp/runs/r1" --steps 4 --kernels-per-step 50 2>/dev/null
"$B/goblind" serve --root "$tmp/runs" --db "$tmp/g.db" --listen 127.0.0.1:0 --quiet-s 1 > "$tmp/out" 2>/dev/null &
pids+=($!)
until grep -q listening "$tmp/out" 2>/dev/null; do sleep 0.1; done
PORT=$(grep -o '127.0.0.1:[0-9]*' "$tmp/out" | cut -d: -f2)
URL="http://127.0.0.1:$PORT"
until [ "$(curl -s -o "$tmp/body" -w '%{http_code}' "$URL/runs/r1/metrics")" = 200 ]; do sleep 0.2; done
"$B/bare_server" 0 "$tmp/body" > "$tmp/bout" &
pids+=($!)
until grep -q ready "$tmp/bout" 2>/dev/null; do sleep 0.1; done
BPORT=$(awk '/ready/ {print $2}' "$tmp/bout")

# wrk NAME URL -> "rps p99_ms errors"
run_wrk() {
  wrk -t2 -c64 -d"${DUR}s" --latency "$2" > "$tmp/wrk_$1.txt" 2>&1
  local rps p99 err
  rps=$(awk '/^Requests\/sec/ {print $2}' "$tmp/wrk_$1.txt")
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v*=1000}; print v}' "$tmp/wrk_$1.txt")
  err=$(awk '/Non-2xx|Socket errors/ {e=1; print} END {if (!e) print "none"}' "$tmp/wrk_$1.txt" | tr '\n' ' ')
  echo "$rps $p99 $err"
}
read -r brps bp99 berr < <(run_wrk bare "http://127.0.0.1:$BPORT/runs/r1/metrics")
read -r grps gp99 gerr < <(run_wrk goblind "$URL/runs/r1/metrics")
printf 'GET /runs/r1/metrics, 64 connections, %ss (wrk -t2 -c64, on the same 2 cores)\n' "$DUR"
printf '  bare libmicrohttpd server   %9.0f req/s  p99 %6.2f ms  errors: %s\n' "$brps" "$bp99" "$berr"
printf '  goblind                     %9.0f req/s  p99 %6.2f ms  errors: %s  (%.0f%% of bare)\n' "$grps" "$gp99" "$gerr" \
  "$(awk -v a="$grps" -v b="$brps" 'BEGIN{print a/b*100}')"

# the same while a ~200 MB run is ingested (hard-linked in; generated once and cached)
BIG=${BENCH_DIR:-/tmp/goblind-bench}/run208
if [ ! -f "$BIG/torch_profile.json" ]; then
  python3 "$SHARED/tools/gen_run.py" "$BIG" --steps 400 --kernels-per-step 400 --cpu-ops-per-step 100 \
    --smi-samples 3000 --seed 7 2>/dev/null
fi
cat "$BIG"/* > /dev/null
ingest() {   # keeps landing copies of the big run while wrk runs
  local i=0 end=$((SECONDS + DUR))
  while [ $SECONDS -lt $end ]; do
    i=$((i + 1)); mkdir "$tmp/runs/big-$i"
    ln "$BIG"/trace.csv "$BIG"/torch_profile.json "$BIG"/amd_smi.csv "$tmp/runs/big-$i/"
    sleep 1.5
  done
}
ingest &
ipid=$!
read -r irps ip99 ierr < <(run_wrk ingest "$URL/runs/r1/metrics")
wait $ipid || true
parsed=$(curl -s "$URL/metrics" | awk '/^goblind_parsed_bytes_total/ {print $2}')
printf '  goblind during ingests      %9.0f req/s  p99 %6.2f ms  errors: %s  (%.0f%% of bare; %.0f MB parsed meanwhile)\n' \
  "$irps" "$ip99" "$ierr" "$(awk -v a="$irps" -v b="$brps" 'BEGIN{print a/b*100}')" "$(awk -v p="$parsed" 'BEGIN{print p/1e6}')"

# GET /runs?limit=100 with NRUNS stored runs
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
rm -rf "$tmp/runs"/big-* "$tmp/g.db"*
for i in $(seq 1 "$NRUNS"); do mkdir "$tmp/runs/s$i"; ln "$tmp/runs/r1"/trace.csv "$tmp/runs/r1"/torch_profile.json "$tmp/runs/r1"/amd_smi.csv "$tmp/runs/s$i/"; done
"$B/goblind" serve --root "$tmp/runs" --db "$tmp/g.db" --listen "127.0.0.1:$PORT" --quiet-s 1 > "$tmp/out2" 2>/dev/null &
pids+=($!)
until curl -s "$URL/metrics" 2>/dev/null | grep -q "goblind_runs{status=\"complete\"} $((NRUNS + 1))"; do sleep 1; done
read -r lrps lp99 lerr < <(run_wrk list "$URL/runs?limit=100")
printf 'GET /runs?limit=100 with %s stored runs: %9.0f req/s  p99 %6.2f ms  errors: %s\n' "$((NRUNS + 1))" "$lrps" "$lp99" "$lerr"
