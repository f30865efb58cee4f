#!/usr/bin/env bash
# `make deb`: the package holds the binary, the unit under /lib/systemd/system, the config as a
# conffile, docs, Prometheus rules, Grafana dashboard, bash completion and man page; installed
# into a scratch root (dpkg-deb -x, next to a copy of the host's systemd units) the unit passes
# `systemd-analyze verify --root`, the binary runs, the man page renders and completion completes.
# usage: deb.sh SRC_DIR BUILD_DIR
set -uo pipefail
SRC=$1 BUILD=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goblind-deb-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
deb=$("$SRC/scripts/make-deb.sh" "$BUILD" "$tmp/out") || { echo "FAIL make-deb.sh"; exit 1; }
[ -f "$deb" ] && ok || { bad "no package"; exit 1; }
list=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/goblind ./lib/systemd/system/goblind.service ./etc/goblind/goblind.conf \
         ./usr/share/doc/goblind/OPERATIONS.md ./usr/share/doc/goblind/API.md \
         ./usr/share/goblind/prometheus/goblind-rules.yml ./usr/share/goblind/grafana/goblind-dashboard.json \
         ./usr/share/bash-completion/completions/goblind ./usr/share/man/man1/goblind.1.gz; do
  grep -qx "$f" <<<"$list" && ok || bad "package lacks $f"
done
[ "$(dpkg-deb -f "$deb" Package)" = goblind ] && ok || bad "Package field"
dpkg-deb -f "$deb" Depends | grep -q libmicrohttpd12 && ok || bad "Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/goblind/goblind.conf && ok || bad "the config is not a conffile"
root="$tmp/root"
mkdir -p "$root"
dpkg-deb -x "$deb" "$root" && ok || bad "dpkg-deb -x"
grep -q '^ExecStart=/usr/bin/goblind serve' "$root/lib/systemd/system/goblind.service" && ok || bad "ExecStart path"
grep -q '^root = /srv/goblin/runs' "$root/etc/goblind/goblind.conf" && ok || bad "packaged config root"
cp -an /lib/systemd/system/. "$root/lib/systemd/system/"          # targets the unit refers to
mkdir -p "$root/bin" && cp -an /bin/kill "$root/bin/kill"          # ExecReload= runs it
if out=$(systemd-analyze verify --root="$root" goblind.service 2>&1); then ok; else bad "systemd-analyze verify: $out"; fi
"$root/usr/bin/goblind" --version | grep -q '^goblind ' && ok || bad "installed binary does not run"
man_out=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/goblind.1.gz" 2>&1)
for want in "goblind show RUN_ID" "goblind forget RUN_ID" "GOBLIND_TOKEN" "Exit status"; do
  grep -qF "$want" <<<"$man_out" && ok || bad "man page lacks '$want'"
done
comp=$(bash -c "source '$root/usr/share/bash-completion/completions/goblind'
  COMP_WORDS=(goblind sh); COMP_CWORD=1; _goblind; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(goblind runs --format ''); COMP_CWORD=3; _goblind; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(goblind show --w); COMP_CWORD=2; _goblind; echo \"\${COMPREPLY[*]}\"")
[ "$comp" = $'show\ntable json\n--wait' ] && ok || bad "bash completion: $comp"
echo "deb: $pass passed, $fail failed ($(basename "$deb"), $(du -k "$deb" | cut -f1) KiB)"
[ "$fail" = 0 ]
