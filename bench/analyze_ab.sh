#!/usr/bin/env bash
# Two goblind binaries' `goblind analyze` on one run directory, runs alternating A and B so
# that load from other processes falls on both alike: wall time and CPU (user + sys) of
# each run, then per binary the median and best. For CPU work on the analyses, where wall
# time on a shared machine is noisy and CPU time is the steadier figure.
# usage: bench/analyze_ab.sh OLD_BINARY NEW_BINARY [RUN_DIR] [RUNS]
#        (RUN_DIR default /tmp/goblind-bench/run208, RUNS default 5)
set -euo pipefail
a=$1 b=$2
run=${3:-${BENCH_DIR:-/tmp/goblind-bench}/run208}
runs=${4:-5}
t=$(mktemp)
trap 'rm -f "$t"' EXIT
cat "$run"/* > /dev/null                   # page cache warm
for i in $(seq "$runs"); do
  for which in A B; do
    bin=$a; [ "$which" = B ] && bin=$b
    /usr/bin/time -f "%e %U %S %M" -o "$t" "$bin" analyze "$run" > /dev/null 2>&1
    read -r wall user sys rss < "$t"
    echo "$which $i wall $wall cpu $(echo "$user + $sys" | bc) (user $user sys $sys) rss_kb $rss"
  done
done | tee /dev/stderr | awk '
  { w[$1] = w[$1] " " $4; c[$1] = c[$1] " " $6 }
  function med(s,  v, n, i, j, x) { n = split(s, v, " "); for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
    return v[int((n + 1) / 2)] " (best " v[1] ")" }
  END { for (k in w) printf "%s: wall median %s s, cpu median %s s\n", k, med(w[k]), med(c[k]) }' | sort
