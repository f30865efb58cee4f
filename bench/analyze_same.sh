#!/usr/bin/env bash
# Are two goblind binaries' analysis documents byte-identical? `goblind analyze` JSON (each
# source's parse_ms masked: a timing; and pieces: how the file was cut for reading) and stderr, with --threads 2 and 1, on the 208 MB run
# of bench/parse.sh (when generated), on every directory of ../shared/fixtures and
# ../shared/corpus (each at every depth) and on every file of both alone (a directory holding
# only a link to it, under its own name). For performance work: the output must not move.
# usage: bench/analyze_same.sh OLD_BINARY NEW_BINARY     (exit 1 when any document differs)
set -u
cd "$(dirname "$0")/.."
old=$1 new=$2
SHARED=${SHARED:-../shared}
DIR=${BENCH_DIR:-/tmp/goblind-bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dirs=()
while IFS= read -r -d '' d; do dirs+=("$d"); done < <(find "$SHARED"/fixtures "$SHARED"/corpus -mindepth 1 -type d -print0 | sort -z)
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  d="$work/alone_$n"
  mkdir -p "$d"
  ln -s "$(realpath "$f")" "$d/$(basename "$f")"
  echo "$f" > "$d.what"
  dirs+=("$d")
done < <(find "$SHARED"/fixtures "$SHARED"/corpus -type f -print0 | sort -z)
# the torch profiler fixtures alone under the name the run layout gives them
for f in "$SHARED"/fixtures/torch_profiler/*.json*; do
  d="$work/torch_$(basename "$f")"
  mkdir -p "$d"
  case $f in *.gz) ln -s "$(realpath "$f")" "$d/torch_profile.json.gz" ;; *) ln -s "$(realpath "$f")" "$d/torch_profile.json" ;; esac
  dirs+=("$d")
done
[ -f "$DIR/run208/torch_profile.json" ] && dirs=("$DIR/run208" "${dirs[@]}")
fail=0
for d in "${dirs[@]}"; do
  for threads in 2 1; do
    for b in old new; do
      bin=${!b}
      "$bin" analyze "$d" --threads "$threads" 2> "$work/$b.err" | sed -E 's/"parse_ms": [-0-9.e+]+/"parse_ms": _/g; s/"pieces": [0-9]+/"pieces": _/g' > "$work/$b.json"
      echo "${PIPESTATUS[0]}" > "$work/$b.rc"
    done
    if cmp -s "$work/old.json" "$work/new.json" && cmp -s "$work/old.err" "$work/new.err" && cmp -s "$work/old.rc" "$work/new.rc"; then
      echo "same  $(cat "$d.what" 2>/dev/null || echo "$d") (--threads $threads, $(wc -c < "$work/old.json") bytes)"
    else
      echo "DIFF  $(cat "$d.what" 2>/dev/null || echo "$d") (--threads $threads)"; fail=1
    fi
  done
done
exit $fail
