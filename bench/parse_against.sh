#!/usr/bin/env bash
# `goblind parse` of this tree against the same command built from another revision, on the
# 208 MB run of bench/parse.sh, alternated run by run so that a slow spell of the shared
# machine falls on both alike. Wall time (nanosecond clock) and CPU (user + sys) of each, best
# and median of N runs, and the two outputs compared (they must be equal but for warnings).
# usage: bench/parse_against.sh REV [RUNS]   (GOBLIND=path to this tree's binary, default
#        build/goblind; the revision is built in a temporary git worktree, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:?usage: bench/parse_against.sh REV [RUNS]}
RUNS=${2:-9}
GOBLIND=${GOBLIND:-build/goblind}
DIR=${BENCH_DIR:-/tmp/goblind-bench}
RUN="$DIR/run208"
[ -x "$GOBLIND" ] || make build >/dev/null
[ -f "$RUN/torch_profile.json" ] || bench/parse.sh 1 >/dev/null   # generates the run
OLD=$(mktemp -d "${TMPDIR:-/tmp}/goblind-against.XXXXXX")
trap 'git worktree remove --force "$OLD" 2>/dev/null || rm -rf "$OLD"' EXIT
git worktree add --detach --force "$OLD" "$REV" >/dev/null 2>&1
cmake -S "$OLD" -B "$OLD/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$OLD/build" -j2 --target goblind >/dev/null

# One timed run, appended to $DIR/against.<label>: "wall cpu"
timed() {
  local label=$1; shift
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$DIR/time.txt" "$@" > "$DIR/against.$label.json"
  t1=$(date +%s%N)
  awk -v ns=$((t1 - t0)) '{printf "%.4f %.3f\n", ns / 1e9, $1 + $2}' "$DIR/time.txt" >> "$DIR/against.$label"
}
# "best median cpu_median" of one label's runs
summary() {
  local cpu
  cpu=$(cut -d' ' -f2 "$DIR/against.$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  cut -d' ' -f1 "$DIR/against.$1" | sort -g | awk -v cpu="$cpu" '{w[NR]=$1} END {print w[1], w[int((NR+1)/2)], cpu}'
}
cat "$RUN"/* > /dev/null
rm -f "$DIR/against.new" "$DIR/against.old"
for _ in $(seq "$RUNS"); do
  timed new "$GOBLIND" parse "$RUN"
  timed old "$OLD/build/goblind" parse "$RUN"
done
python3 - "$DIR/against.new.json" "$DIR/against.old.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("warnings"); b.pop("warnings")
assert a == b, "the two revisions' results differ"
PY
read -r nt nmed nc < <(summary new)
read -r ot omed oc < <(summary old)
awk -v nt="$nt" -v nmed="$nmed" -v nc="$nc" -v ot="$ot" -v omed="$omed" -v oc="$oc" -v rev="$REV" -v runs="$RUNS" 'BEGIN {
  printf "this tree        %6.3f s best, %6.3f s median, CPU %.3f s median (%d runs)\n", nt, nmed, nc, runs
  printf "%-16s %6.3f s best, %6.3f s median, CPU %.3f s median\n", rev, ot, omed, oc
  printf "this / %s  %.2fx best, %.2fx median, %.2fx CPU; results equal\n", rev, nt / ot, nmed / omed, nc / oc
}'
