#!/usr/bin/env bash
# The goblind command line: exit codes, --help/--version, and that output is always
# valid UTF-8 JSON with exactly the schema's keys, even for hostile kernel names.
set -uo pipefail
GOBLIND=$1 SHARED=$2
PYTHON=${3:-python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goblind-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
expect() {   # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2; shift 3
  "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  if [ "$got" = "$want" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $what: exit $got, want $want"; cat "$tmp/err"; fi
}
expect 0 "--version" -- "$GOBLIND" --version
grep -q '^goblind [0-9]' "$tmp/out" || { fail=$((fail + 1)); echo "FAIL --version text"; }
expect 0 "--help" -- "$GOBLIND" --help
for cmd in $("$GOBLIND" help --list); do          # every subcommand: usage on stdout, exit 0
  expect 0 "$cmd --help" -- "$GOBLIND" "$cmd" --help
  grep -q "^usage: goblind $cmd" "$tmp/out" || { fail=$((fail + 1)); echo "FAIL $cmd --help text"; }
  expect 0 "$cmd -h" -- "$GOBLIND" "$cmd" -h
  expect 0 "help $cmd" -- "$GOBLIND" help "$cmd"
done
expect 2 "runs: bad format" -- "$GOBLIND" runs --format xml
expect 2 "show: --cert without --key" -- "$GOBLIND" show x --cert a.pem
expect 2 "forget without id" -- "$GOBLIND" forget
expect 2 "analysis without id" -- "$GOBLIND" analysis
expect 2 "report: --format is not an option" -- "$GOBLIND" report x --format json
expect 2 "no command" -- "$GOBLIND"
expect 2 "unknown command" -- "$GOBLIND" frobnicate
expect 2 "parse without dir" -- "$GOBLIND" parse
expect 2 "bad precision" -- "$GOBLIND" parse "$tmp" --precision fp64
expect 2 "bad steps" -- "$GOBLIND" parse "$tmp" --steps ten
expect 2 "bad compat" -- "$GOBLIND" parse "$tmp" --compat old
expect 2 "unknown option" -- "$GOBLIND" parse "$tmp" --frob
expect 2 "two dirs" -- "$GOBLIND" parse "$tmp" "$tmp"
expect 1 "missing dir" -- "$GOBLIND" parse "$tmp/nope"
touch "$tmp/file"
expect 1 "file, not dir" -- "$GOBLIND" parse "$tmp/file"
mkdir "$tmp/locked" && chmod 000 "$tmp/locked"
if [ "$(id -u)" != 0 ]; then expect 1 "unreadable dir" -- "$GOBLIND" parse "$tmp/locked"; fi
mkdir "$tmp/empty"
expect 3 "empty run dir" -- "$GOBLIND" parse "$tmp/empty"     # no artefacts: says so, prints no numbers
grep -q "no artefacts found" "$tmp/err" && [ ! -s "$tmp/out" ] || { fail=$((fail + 1)); echo "FAIL empty dir message"; }
mkdir "$tmp/smi-only" && printf 'timestamp,gpu_util\n1,50\n' > "$tmp/smi-only/amd_smi.csv"
expect 0 "table format" -- "$GOBLIND" parse "$tmp/smi-only" --format table
grep -q "waste budget" "$tmp/out" || { fail=$((fail + 1)); echo "FAIL --format table text"; }
expect 2 "bad format" -- "$GOBLIND" parse "$tmp/empty" --format xml
mkdir "$tmp/hostile"
printf 'Kernel_Name,DurationNs\n"a\x01b\x7f\xff\xfe\tz\\\\\x22\x22q",5\n' > "$tmp/hostile/trace.csv"
printf '{"metadata": {"tokens_per_sec": 1e400, "mfu_pct": NaN, "pytorch_version": "\\ud800x"}}' > "$tmp/hostile/torch_profile.json"
expect 0 "hostile run" -- "$GOBLIND" parse "$tmp/hostile" --precision fp16 --steps 3
"$PYTHON" - "$tmp/out" "$SHARED/schema/run_metrics.schema.json" <<'PY' || fail=$((fail + 1))
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")                                   # strict: valid UTF-8
doc = json.loads(raw, parse_constant=lambda c: sys.exit(f"non-finite {c} in output"))
schema = json.load(open(sys.argv[2]))
assert set(doc) == set(schema["properties"]), set(doc) ^ set(schema["properties"])
assert doc["top_kernels"][0]["name"] == "a\x01b\x7f\ufffd\ufffd\tz\\\\\"q", repr(doc["top_kernels"][0]["name"])
assert doc["tokens_per_sec"] == 0.0 and doc["mfu_pct"] == 0.0 and doc["steps"] == 3
assert doc["pytorch_version"] == "\ufffdx", doc["pytorch_version"]
import jsonschema          # python3-jsonschema: installed by scripts/install-deps.sh
jsonschema.validate(doc, schema)
PY
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
