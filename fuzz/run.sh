#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang and runs each for FUZZ_SECONDS (default 1800),
# seeded from ../shared/fixtures (the record-format harness: each file once per byte-stream format of
# the registry, as fuzz/fuzz_formats lists them) and tests/regressions (every earlier finding). Corpora persist in build-fuzz/corpus;
# findings land in build-fuzz/findings and fail the run.
# usage: fuzz/run.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-${FUZZ_SECONDS:-1800}}
shift || true
HARNESSES=${*:-kernel_trace torch_json torch_gzip torch_records amd_smi nvidia_smi record_formats pairs sqlite}
SHARED=${SHARED:-../shared}
B=build-fuzz
LAUNCHER=$(command -v ccache >/dev/null && echo -DCMAKE_C_COMPILER_LAUNCHER=ccache || true)
CC=clang cmake -S . -B $B -DGOBLIND_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo $LAUNCHER >/dev/null
cmake --build $B -j 2 >/dev/null
seed() {   # seed DIR FILES...: copy each file, prefixed with a chunk-size byte
  local dir=$1; shift
  mkdir -p "$dir"
  local i=0
  for f in "$@"; do
    [ -f "$f" ] || continue
    i=$((i + 1))
    { printf '\x05'; head -c 1000000 "$f"; } > "$dir/seed-$i"
  done
}
# seed_formats DIR FILES...: each file once per byte-stream record format (byte 0 picks the
# format, byte 1 the chunking; see fuzz/fuzz_record_formats.c); the formats come from the
# registry (fuzz/fuzz_formats lists them)
N_FORMATS=$($B/fuzz/fuzz_formats | wc -l)
seed_formats() {
  local dir=$1; shift
  mkdir -p "$dir"
  local i=0
  for f in "$@"; do
    [ -f "$f" ] || continue
    for k in $(seq 0 $((N_FORMATS - 1))); do
      i=$((i + 1))
      { printf "\\$(printf '%03o' "$k")\\x05"; head -c 65536 "$f"; } > "$dir/seed-$i"
    done
  done
}
# seed_pairs DIR FILES...: each file once per (pair format, readings) choice of fuzz/fuzz_pairs.c
# (byte 0: the format, modulo the registry's pair formats; byte 1: the two readings' rules)
seed_pairs() {
  local dir=$1; shift
  mkdir -p "$dir"
  local i=0
  for f in "$@"; do
    [ -f "$f" ] || continue
    for k in 0 1 2 3; do
      for how in 001 006 011 014; do
        i=$((i + 1))
        { printf "\\$(printf '%03o' "$k")\\$how\\x05"; head -c 65536 "$f"; } > "$dir/seed-$i"
      done
    done
  done
}
FX=$SHARED/fixtures
for h in $HARNESSES; do
  c=$B/corpus/$h
  # the seeds every run (fixed names: a kept corpus gets the seeds of a format added since)
  case $h in
    kernel_trace) seed "$c" "$FX"/rocprofv3/*.csv "$FX"/msprof/*.csv ;;
    torch_json) seed "$c" "$FX"/torch_profiler/*.json "$FX"/aie/*.json ;;
    torch_records) seed "$c" "$FX"/torch_profiler/*.json "$FX"/aie/*.json ;;
    torch_gzip) seed "$c" "$FX"/torch_profiler/*.gz "$FX"/rocprofv3/*.gz ;;
    amd_smi) seed "$c" "$FX"/amd_smi/*.csv "$FX"/nvidia_smi/*.csv ;;
    nvidia_smi) seed "$c" "$FX"/nvidia_smi/*.csv "$FX"/amd_smi/*.csv ;;
    pairs) seed_pairs "$c" "$FX"/amd_smi/*.csv "$FX"/nvidia_smi/*.csv "$FX"/rocprofv3/*.csv "$FX"/msprof/*.csv ;;
    record_formats) seed_formats "$c" "$FX"/*/*.csv "$FX"/*/*.json tests/fixtures/*/*.csv tests/fixtures/*/*.json \
                        fuzz/corpus/fmtjson/*/* ;;
    sqlite) mkdir -p "$c"; cp fuzz/corpus/sqlite/*.image fuzz/corpus/sqlite/*.sql "$c"/
            for f in "$FX"/rocprofv3/*.db; do { printf '\x00'; cat "$f"; } > "$c/fixture-$(basename "$f")"; done
            for f in "$SHARED"/corpus/*/rocprof_v1_results_db/*.db "$SHARED"/corpus/found/*v1*.db; do
              [ -f "$f" ] && { printf '\x01'; head -c 1000000 "$f"; } > "$c/v1-$(basename "$f")"; done ;;
  esac
  for f in tests/regressions/$h/*; do [ -f "$f" ] && cp "$f" "$c/regression-$(basename "$f")"; done   # findings, as found
done
mkdir -p $B/findings
# FUZZ_JOBS harnesses at a time (default 2: one per core), each for SECS
JOBS=${FUZZ_JOBS:-2}
fuzz_one() {   # fuzz_one HARNESS: runs it; its exit status in $B/fuzz_HARNESS.rc
  local h=$1 rc=0
  $B/fuzz/fuzz_$h $B/corpus/$h -max_total_time="$SECS" -max_len=1048576 -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 -artifact_prefix=$B/findings/$h- > $B/fuzz_$h.log 2>&1 || rc=$?
  echo $rc > $B/fuzz_$h.rc
}
for h in $HARNESSES; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
  echo "fuzz_$h: ${SECS}s"
  fuzz_one "$h" &
done
wait
status=0 passed=0 failed=0
for h in $HARNESSES; do
  if [ "$(cat $B/fuzz_$h.rc)" != 0 ]; then
    echo "fuzz_$h FOUND A PROBLEM: see $B/fuzz_$h.log and $B/findings/"; tail -30 $B/fuzz_$h.log; status=1
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
  echo "fuzz_$h: $(grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" $B/fuzz_$h.log | tr '\n' ' ')"
done
echo "findings so far in $B/findings: $(find $B/findings -type f | wc -l)"
echo "fuzz: $passed passed, $failed failed"
exit $status
