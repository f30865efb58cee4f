#!/usr/bin/env bash
# `make deb`: a Debian package of an already built goblind (dpkg-deb, no debhelper needed), clean
# under `lintian --pedantic` (tests/deb.sh):
#   /usr/bin/goblind (stripped), /lib/systemd/system/goblind.service (enabled and started on
#   install by deb-systemd-helper / deb-systemd-invoke, as debhelper's scripts do),
#   /etc/goblind/goblind.conf (a conffile: an edited config survives upgrades),
#   /usr/share/doc/goblind (docs and dashboard pictures, compressed; copyright, changelog.Debian.gz),
#   /usr/share/goblind/prometheus (rules, fleet example), /usr/share/goblind/grafana (dashboard),
#   bash completion, man page. The packaged config's run root /srv/goblin/runs is made on install
#   (Debian policy keeps packages out of /srv) and removed on purge when empty.
# usage: make-deb.sh BUILD_DIR OUT_DIR   -> OUT_DIR/goblind_VERSION-1_ARCH.deb
#   DEB_MAINTAINER="Name <mail>" overrides the Maintainer field; SOURCE_DATE_EPOCH the changelog date.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/goblind-deb-XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
DESTDIR="$root" cmake --install "$BUILD" --prefix /usr >/dev/null
maintainer=${DEB_MAINTAINER:-goblind maintainers <goblind@users.noreply.github.com>}
upstream=$("$root/usr/bin/goblind" --version | sed 's/^goblind //')
version="$upstream-1"
arch=$(dpkg --print-architecture)
install -d "$root/lib/systemd/system" "$root/etc/goblind" "$root/DEBIAN"
sed -e 's|/usr/local/bin/goblind|/usr/bin/goblind|' \
    -e 's|file:///usr/local/share/doc/goblind/OPERATIONS.md|file:///usr/share/doc/goblind/OPERATIONS.md.gz|' \
    "$SRC/systemd/goblind.service" > "$root/lib/systemd/system/goblind.service"
sed -e 's|^root = ./runs|root = /srv/goblin/runs|' -e 's|^db = ./goblind.db|db = /var/lib/goblind/goblind.db|' \
    "$SRC/config/goblind.conf" > "$root/etc/goblind/goblind.conf"
chmod 644 "$root/lib/systemd/system/goblind.service" "$root/etc/goblind/goblind.conf"
gzip -9n "$root/usr/share/man/man1/goblind.1"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/goblind"
doc="$root/usr/share/doc/goblind"
date=$(date -u -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$SRC" log -1 --format=%ct 2>/dev/null || date +%s)}")
printf '%s\n' "goblind ($version) unstable; urgency=medium" "" \
  "  * Built from the goblind source tree by scripts/make-deb.sh (upstream $upstream)." "" \
  " -- $maintainer  $date" > "$doc/changelog.Debian"
years=$(git -C "$SRC" log --format=%cd --date=format:%Y 2>/dev/null | sort -u | sed -n '1p;$p' | paste -sd- | sed 's/^\([0-9]*\)-\1$/\1/')
years=${years:-$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y)}
# Not an upload to Debian: there is no ITP bug for the one changelog entry to close.
install -d "$root/usr/share/lintian/overrides"
echo "goblind: initial-upload-closes-no-bugs" > "$root/usr/share/lintian/overrides/goblind"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: goblind
Source: https://github.com/goblin/goblind

Files: *
Copyright: $years the goblind authors
License: NONE
 The goblind source tree states no licence; until its authors choose one, all
 rights are reserved by them.
COPYRIGHT
find "$doc" -type f ! -name copyright ! -name '*.png' -exec gzip -9n {} +
# Shared-library dependencies as dpkg-shlibdeps computes them (dpkg-dev), else the known list.
depends="libc6, libjansson4, libuv1, libmicrohttpd12, libsqlite3-0, zlib1g, libgnutls30, libcurl3-gnutls, libsystemd0, libzip4"
if command -v dpkg-shlibdeps >/dev/null; then
  mkdir -p "$stage/debian"
  printf 'Source: goblind\n\nPackage: goblind\nArchitecture: any\n' > "$stage/debian/control"
  if deps=$(cd "$stage" && dpkg-shlibdeps -O "$root/usr/bin/goblind" 2>/dev/null | sed -n 's/^shlibs:Depends=//p') \
      && [ -n "$deps" ]; then
    depends=$deps
  fi
fi
size=$(du -sk "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: goblind
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends, init-system-helpers (>= 1.54~)
Section: admin
Priority: optional
Homepage: https://github.com/goblin/goblind
Description: telemetry daemon for GPU training nodes
 goblind watches training run directories (rocprofv3 kernel traces,
 torch.profiler traces, amd-smi telemetry), parses each run as its files
 land, stores RunMetrics and a waste budget in SQLite and serves them as
 REST JSON, Server-Sent Events, Prometheus metrics and a dashboard page.
CONTROL
echo /etc/goblind/goblind.conf > "$root/DEBIAN/conffiles"
# The maintainer scripts debhelper's dh_installsystemd writes (enable on first install, start or
# restart, stop on remove, forget on purge), through deb-systemd-helper / deb-systemd-invoke;
# under DPKG_ROOT (an install into another root) nothing is started.
cat > "$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  mkdir -p "${DPKG_ROOT:-}/srv/goblin/runs"     # the packaged config's run root
fi
if [ "$1" = configure ] || [ "$1" = abort-upgrade ] || [ "$1" = abort-deconfigure ] || [ "$1" = abort-remove ]; then
  deb-systemd-helper unmask goblind.service >/dev/null || true
  if deb-systemd-helper --quiet was-enabled goblind.service; then
    deb-systemd-helper enable goblind.service >/dev/null || true
  else
    deb-systemd-helper update-state goblind.service >/dev/null || true
  fi
  if [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
    if [ -n "$2" ]; then action=restart; else action=start; fi
    deb-systemd-invoke "$action" goblind.service >/dev/null || true
  fi
fi
POSTINST
cat > "$root/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
  deb-systemd-invoke stop goblind.service >/dev/null || true
fi
PRERM
cat > "$root/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -z "${DPKG_ROOT:-}" ] && [ -d /run/systemd/system ]; then
  systemctl --system daemon-reload >/dev/null || true
fi
if [ "$1" = remove ] && command -v deb-systemd-helper >/dev/null; then
  deb-systemd-helper mask goblind.service >/dev/null || true
fi
if [ "$1" = purge ]; then
  if command -v deb-systemd-helper >/dev/null; then
    deb-systemd-helper purge goblind.service >/dev/null || true
    deb-systemd-helper unmask goblind.service >/dev/null || true
  fi
  # the database (StateDirectory; DynamicUser keeps it under /var/lib/private) and the run
  # root if no run is left in it
  rm -rf "${DPKG_ROOT:-}/var/lib/goblind" "${DPKG_ROOT:-}/var/lib/private/goblind"
  rmdir --ignore-fail-on-non-empty "${DPKG_ROOT:-}/srv/goblin/runs" "${DPKG_ROOT:-}/srv/goblin" 2>/dev/null || true
fi
POSTRM
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
deb="$OUT/goblind_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
