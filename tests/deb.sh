#!/usr/bin/env bash
# `make deb` (and `make install`): the package holds the binary, the unit under /lib/systemd/system, the config as a
# conffile, docs, Prometheus rules, Grafana dashboard, bash completion and man page; installed
# into a scratch root (dpkg-deb -x, next to a copy of the host's systemd units) the unit passes
# `systemd-analyze verify --root`, the binary runs, the man page renders and completion completes.
# lintian --pedantic reports no error and no warning; the binary is stripped, fortified and
# BIND_NOW; installed with dpkg into a scratch root (--root, scripts chrootless: DPKG_ROOT) the
# service is enabled and the run root made, and a purge leaves nothing behind.
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
         ./usr/share/doc/goblind/OPERATIONS.md.gz ./usr/share/doc/goblind/API.md.gz \
         ./usr/share/doc/goblind/changelog.Debian.gz ./usr/share/doc/goblind/copyright \
         ./usr/share/doc/goblind/dashboard.png ./usr/share/doc/goblind/dashboard-timeline.png \
         ./usr/share/goblind/prometheus/goblind-fleet.example.yml ./usr/share/goblind/prometheus/goblind-targets.example.json \
         ./usr/share/goblind/prometheus/goblind-rules.yml ./usr/share/goblind/grafana/goblind-dashboard.json \
         ./usr/share/bash-completion/completions/goblind ./usr/share/man/man1/goblind.1.gz; do
  grep -qx "$f" <<<"$list" && ok || bad "package lacks $f"
done
[ "$(dpkg-deb -f "$deb" Package)" = goblind ] && ok || bad "Package field"
dpkg-deb -f "$deb" Depends | grep -q libmicrohttpd12 && ok || bad "Depends: $(dpkg-deb -f "$deb" Depends)"
dpkg-deb -I "$deb" conffiles | grep -qx /etc/goblind/goblind.conf && ok || bad "the config is not a conffile"
# every picture the docs show is shipped next to them
for png in $(grep -ho '[a-z-]*\.png' "$SRC/docs/OPERATIONS.md" "$SRC/docs/API.md" | sort -u); do
  grep -qx "./usr/share/doc/goblind/$png" <<<"$list" && ok || bad "package lacks the docs' $png"
done
if command -v lintian >/dev/null; then
  lint=$(lintian --pedantic --tag-display-limit 0 "$deb" 2>&1 | grep -E '^[EW]: ')
  [ -z "$lint" ] && ok || bad "lintian --pedantic: $lint"
else
  bad "lintian is not installed (scripts/install-deps.sh --test)"
fi
root="$tmp/root"
mkdir -p "$root"
dpkg-deb -x "$deb" "$root" && ok || bad "dpkg-deb -x"
grep -q '^ExecStart=/usr/bin/goblind serve' "$root/lib/systemd/system/goblind.service" && ok || bad "ExecStart path"
grep -q '^root = /srv/goblin/runs' "$root/etc/goblind/goblind.conf" && ok || bad "packaged config root"
cp -an /lib/systemd/system/. "$root/lib/systemd/system/"          # targets the unit refers to
mkdir -p "$root/bin" && cp -an /bin/kill "$root/bin/kill"          # ExecReload= runs it
if out=$(systemd-analyze verify --root="$root" goblind.service 2>&1); then ok; else bad "systemd-analyze verify: $out"; fi
"$root/usr/bin/goblind" --version | grep -q '^goblind ' && ok || bad "installed binary does not run"
elf=$(readelf -W --dynamic --syms "$root/usr/bin/goblind")
grep -qE 'FLAGS.*BIND_NOW' <<<"$elf" && ok || bad "binary not linked with -z now (BIND_NOW)"
grep -qE '__[a-z_]+_chk@' <<<"$elf" && ok || bad "binary has no fortified (_chk) libc calls"
readelf -S "$root/usr/bin/goblind" | grep -q '\.debug_info\|\.symtab' && bad "binary not stripped" || ok
grep -q 'Documentation=file:///usr/share/doc/goblind/OPERATIONS.md.gz' "$root/lib/systemd/system/goblind.service" \
  && ok || bad "unit's Documentation= does not name the packaged OPERATIONS.md.gz"
# dpkg into a scratch root: enabled, run root made; purged: nothing left but dpkg's own records
sr="$tmp/scratch"
mkdir -p "$sr/var/lib/dpkg/info" "$sr/var/lib/dpkg/updates" "$sr/var/lib/dpkg/triggers"
touch "$sr/var/lib/dpkg/status"
mkdir -p "$sr/etc/systemd/system" "$sr/srv" "$sr/var/lib/systemd"   # what base-files and systemd provide
before=$(cd "$sr" && find . | sort)
dpkgr=(dpkg --root="$sr" --force-script-chrootless --force-depends --force-not-root --log=/dev/null)
if out=$("${dpkgr[@]}" -i "$deb" 2>&1); then ok; else bad "dpkg -i into a scratch root: $out"; fi
[ "$(readlink "$sr/etc/systemd/system/multi-user.target.wants/goblind.service")" = /lib/systemd/system/goblind.service ] \
  && ok || bad "service not enabled on install: $(ls -l "$sr/etc/systemd/system/multi-user.target.wants" 2>&1)"
[ -d "$sr/srv/goblin/runs" ] && ok || bad "/srv/goblin/runs not made on install"
if out=$("${dpkgr[@]}" --purge goblind 2>&1); then ok; else bad "dpkg --purge: $out"; fi
left=$(comm -13 <(echo "$before") <(cd "$sr" && find . | sort | grep -v '^\./var/lib/dpkg/'))
[ -z "$left" ] && ok || bad "purge left behind: $left"
man_out=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/goblind.1.gz" 2>&1)
for want in "goblind show RUN_ID" "goblind forget RUN_ID" "GOBLIND_TOKEN" "Exit status"; do
  grep -qF "$want" <<<"$man_out" && ok || bad "man page lacks '$want'"
done
comp=$(PATH="$root/usr/bin:$PATH" bash -c "source '$root/usr/share/bash-completion/completions/goblind'
  COMP_WORDS=(goblind sh); COMP_CWORD=1; _goblind; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(goblind runs --format ''); COMP_CWORD=3; _goblind; echo \"\${COMPREPLY[*]}\"
  COMP_WORDS=(goblind show --w); COMP_CWORD=2; _goblind; echo \"\${COMPREPLY[*]}\"")
[ "$comp" = $'show\ntable json\n--wait' ] && ok || bad "bash completion: $comp"
# `make install` (no package): the same files under PREFIX, the unit under /etc/systemd/system
mi="$tmp/make-install"
if out=$(make -s -C "$SRC" install BUILD="$BUILD" JOBS=1 DESTDIR="$mi" PREFIX=/usr 2>&1); then ok; else bad "make install: $out"; fi
for f in usr/bin/goblind etc/systemd/system/goblind.service etc/goblind/goblind.conf usr/share/man/man1/goblind.1 \
         usr/share/bash-completion/completions/goblind usr/share/goblind/prometheus/goblind-rules.yml \
         usr/share/goblind/grafana/goblind-dashboard.json usr/share/doc/goblind/OPERATIONS.md; do
  [ -s "$mi/$f" ] && ok || bad "make install lacks /$f"
done
grep -q '^ExecStart=/usr/bin/goblind serve' "$mi/etc/systemd/system/goblind.service" && ok || bad "make install: ExecStart path"
! grep -n /usr/local "$mi/etc/systemd/system/goblind.service" && ok || bad "make install PREFIX=/usr: /usr/local left in the unit"
echo "deb: $pass passed, $fail failed ($(basename "$deb"), $(du -k "$deb" | cut -f1) KiB)"
[ "$fail" = 0 ]
