#!/usr/bin/env bash
# api/openapi.json under Redocly's linter (its recommended rules): no error and no warning — the
# bearer scheme applied, an operationId on every operation, a licence, no unused component.
# The linter is a pinned @redocly/cli installed with npm into BUILD_DIR/redocly on first use;
# without npm or the npm registry the test is skipped (exit 77) and says why.
# usage: openapi_lint.sh SRC_DIR BUILD_DIR
set -uo pipefail
SRC=$1 BUILD=$2
VERSION=2.77.0
dir="$BUILD/redocly"
bin="$dir/node_modules/.bin/redocly"
if [ ! -x "$bin" ] || ! grep -q "\"version\": \"$VERSION\"" "$dir/node_modules/@redocly/cli/package.json" 2>/dev/null; then
  if ! command -v npm >/dev/null; then
    echo "SKIP: npm is not installed (scripts/install-deps.sh --test installs it); redocly lint not run"
    exit 77
  fi
  mkdir -p "$dir"
  if ! out=$(cd "$dir" && npm install --no-audit --no-fund --loglevel=error "@redocly/cli@$VERSION" 2>&1); then
    echo "SKIP: npm install @redocly/cli@$VERSION failed (no registry?): $out" | tail -5
    exit 77
  fi
fi
out=$(cd "$SRC" && NO_UPDATE_NOTIFIER=1 REDOCLY_TELEMETRY=off "$bin" lint --format=summary api/openapi.json 2>&1)
rc=$?
echo "$out" | grep -vE '[║╔╚]'
summary=$(grep -E '^(error|warning) ' <<<"$out")
if [ $rc -ne 0 ] || [ -n "$summary" ]; then
  echo "FAIL: redocly lint reports errors or warnings"
  exit 1
fi
echo "openapi_lint: redocly $VERSION, no errors, no warnings"
