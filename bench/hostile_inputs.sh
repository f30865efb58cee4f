#!/usr/bin/env bash
# Hostile inputs that once cost superlinear time, each generated and timed: the figures
# quoted in docs/RELIABILITY.md ("Hostile inputs: time"). The first three finish in well
# under a second on the project's VM; the layers one is not fixed (about 6 s: see there). The
# "before" figures there were taken with the binaries before each fix.
# usage: bench/hostile_inputs.sh      (GOBLIND=path, default build/goblind;
#                                      SECTION_TOOL=path, default build/tests/section_tool)
set -euo pipefail
cd "$(dirname "$0")/.."
GOBLIND=${GOBLIND:-build/goblind}
TOOL=${SECTION_TOOL:-build/tests/section_tool}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/goblind-hostile.XXXXXX")
trap 'rm -rf "$DIR"' EXIT
mkdir -p "$DIR"/{header,search,symbols,layers}
python3 - "$DIR" <<'PY'
import sys
d = sys.argv[1]
# a kernel trace whose one header line holds 65,000 names of 900 bytes (59 MB)
open(f"{d}/header/kernel_trace.csv", "w").write(",".join(["Kernel_Name_" + "y" * 900] * 65000) + "\n1,2\n")
# an nsys trace whose first 100 lines hold 60,000 cells, one naming a required column (66 MB)
line = "Start (ns)," + ",".join(["abcdefghij"] * 60000) + "\n"
open(f"{d}/search/x_cuda_gpu_trace.csv", "w").write(line * 100)
# rocprofv3 JSON: 100,000 symbols, then 7,500 repeats of a symbol out of order and a dispatch (6.7 MB)
parts = ['"kernel_symbols":[' + ",".join('{"kernel_id":%d,"formatted_kernel_name":"k%d"}' % (i, i)
                                         for i in range(1, 100001)) + "]"]
parts += ['"kernel_symbols":[{"kernel_id":0,"kernel_name":"a"}],"buffer_records":{"kernel_dispatch":[{"kind":4,'
          '"operation":2,"start_timestamp":1,"end_timestamp":2,"dispatch_info":{"kernel_id":0}}]}'] * 7500
open(f"{d}/symbols/x_results.json", "w").write('{"rocprofiler-sdk-tool":[{' + ",".join(parts) + "}]}")
# layers: 16,384 correlation ids of 8 kernels each, then 200,000 kernels of new ids 50 ms apart (27 MB)
rows = ['"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Name","Correlation_Id","Start_Timestamp",'
        '"End_Timestamp"']
t, n = 1000, 1
for cid in range(1, 16385):
    for _ in range(8):
        rows.append('"KERNEL_DISPATCH","1","1","7","%d","gemm_k","%d","%d","%d"' % (n, cid, t, t + 10))
        n, t = n + 1, t + 20
for i in range(200000):
    t += 50000001
    rows.append('"KERNEL_DISPATCH","1","1","7","%d","gemm_k","%d","%d","%d"' % (n, 100000 + i, t, t + 10))
    n += 1
open(f"{d}/layers/kernel_trace.csv", "w").write("\n".join(rows) + "\n")
PY
timed() {   # label, command...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$DIR/t" "$@" >/dev/null 2>&1 || true
  read -r s kb < "$DIR/t"
  printf "%-58s %6.2f s %7.1f MB\n" "$label" "$s" "$((kb))e-3"
}
timed "kernel trace, 65,000-name header (goblind analyze)" "$GOBLIND" analyze "$DIR/header"
timed "nsys trace, 100 lines of 60,000 cells (section_tool)" "$TOOL" --records "nsys-cuda-gpu-trace-csv=$DIR/search/x_cuda_gpu_trace.csv"
timed "rocprofv3 JSON, symbols out of order (section_tool)" "$TOOL" --records "rocprofv3-json=$DIR/symbols/x_results.json"
timed "layers, 200,000 kernels 50 ms apart (goblind analyze)" "$GOBLIND" analyze "$DIR/layers"
