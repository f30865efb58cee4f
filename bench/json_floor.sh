#!/usr/bin/env bash
# The JSON tokenizer alone on the 208 MB run's torch profile (bench/parse.sh generates the
# run): validation only, goblind parse's pattern, every token reported; ns per byte.
# docs/PERFORMANCE.md "The tokenizer's floor".
# usage: bench/json_floor.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
RUN=${BENCH_DIR:-/tmp/goblind-bench}/run208
[ -f "$RUN/torch_profile.json" ] || bench/parse.sh 1 >/dev/null
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I. bench/json_floor.c parsers/tokenizers/json_tokenizer.c base/text_utf8.c \
  base/strbuf.c -o "$OUT/json_floor"
"$OUT/json_floor" "$RUN/torch_profile.json" "$RUNS"
