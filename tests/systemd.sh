#!/usr/bin/env bash
# The systemd unit: `systemd-analyze verify` passes, `systemd-analyze security --offline`
# rates it 2.0 or lower, and (release build only) `make install DESTDIR=...` lays out the
# binary, unit, config and docs.
set -uo pipefail
SRC=$1 GOBLIND=$2 BUILD_DIR=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goblind-systemd-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
command -v systemd-analyze >/dev/null || { echo "FAIL systemd-analyze not installed (Debian package systemd)"; exit 1; }
unit="$tmp/goblind.service"
sed "s|/usr/local/bin/goblind|$GOBLIND|" "$SRC/systemd/goblind.service" > "$unit"
if out=$(systemd-analyze verify "$unit" 2>&1); then ok; else bad "systemd-analyze verify: $out"; fi
sec=$(systemd-analyze security --offline=true "$unit" 2>&1)
score=$(printf '%s\n' "$sec" | sed -n 's/.*Overall exposure level for goblind.service: \([0-9.]*\).*/\1/p')
if [ -n "$score" ] && awk "BEGIN{exit !($score <= 2.0)}"; then ok; echo "systemd-analyze security: $score"; else bad "security score '$score' (want <= 2.0)"; fi
for key in Type=notify WatchdogSec= StateDirectory=goblind ConfigurationDirectory=goblind DynamicUser=yes \
           ProtectSystem=strict ProtectHome=yes PrivateTmp=yes NoNewPrivileges=yes RestrictAddressFamilies= \
           SystemCallFilter=@system-service MemoryDenyWriteExecute=yes; do
  grep -q "^$key" "$SRC/systemd/goblind.service" && ok || bad "unit lacks $key"
done
if [ -n "$BUILD_DIR" ]; then
  if make -s -C "$SRC" install DESTDIR="$tmp/root" BUILD="$BUILD_DIR" >/dev/null 2>"$tmp/install.err"; then
    for f in usr/local/bin/goblind etc/systemd/system/goblind.service etc/goblind/goblind.conf \
             usr/local/share/doc/goblind/OPERATIONS.md usr/local/share/goblind/prometheus/goblind-rules.yml; do
      [ -e "$tmp/root/$f" ] && ok || bad "make install did not create /$f"
    done
    grep -q '^root = /srv/goblin/runs' "$tmp/root/etc/goblind/goblind.conf" && ok || bad "installed config root"
    "$tmp/root/usr/local/bin/goblind" --version >/dev/null && ok || bad "installed binary runs"
  else
    bad "make install: $(cat "$tmp/install.err")"
  fi
fi
echo "systemd: $pass passed, $fail failed"
[ "$fail" = 0 ]
