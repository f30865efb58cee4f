#!/usr/bin/env bash
# `make deb`: a Debian package of an already built goblind (dpkg-deb, no debhelper needed):
#   /usr/bin/goblind, /lib/systemd/system/goblind.service, /etc/goblind/goblind.conf (a conffile:
#   an edited config survives upgrades), /usr/share/doc/goblind (docs), /usr/share/goblind/prometheus
#   (alert and recording rules), /usr/share/goblind/grafana (dashboard), bash completion, man page.
# usage: make-deb.sh BUILD_DIR OUT_DIR   -> OUT_DIR/goblind_VERSION_ARCH.deb
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$(mkdir -p "$2" && cd "$2" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/goblind-deb-XXXXXX")
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
DESTDIR="$root" cmake --install "$BUILD" --prefix /usr >/dev/null
version=$("$root/usr/bin/goblind" --version | sed 's/^goblind //')
arch=$(dpkg --print-architecture)
install -d "$root/lib/systemd/system" "$root/etc/goblind" "$root/DEBIAN"
sed -e 's|/usr/local/bin/goblind|/usr/bin/goblind|' -e 's|/usr/local/share/doc/goblind|/usr/share/doc/goblind|' \
    "$SRC/systemd/goblind.service" > "$root/lib/systemd/system/goblind.service"
sed -e 's|^root = ./runs|root = /srv/goblin/runs|' -e 's|^db = ./goblind.db|db = /var/lib/goblind/goblind.db|' \
    "$SRC/config/goblind.conf" > "$root/etc/goblind/goblind.conf"
chmod 644 "$root/lib/systemd/system/goblind.service" "$root/etc/goblind/goblind.conf"
gzip -9n "$root/usr/share/man/man1/goblind.1"
# Shared-library dependencies as dpkg-shlibdeps computes them (dpkg-dev), else the known list.
depends="libc6, libjansson4, libuv1, libmicrohttpd12, libsqlite3-0, zlib1g, libgnutls30, libcurl3-gnutls, libsystemd0"
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
Maintainer: goblind maintainers <goblind@localhost>
Installed-Size: $size
Depends: $depends, systemd
Section: admin
Priority: optional
Homepage: https://github.com/goblin/goblind
Description: telemetry daemon for GPU training nodes
 goblind watches training run directories (rocprofv3 kernel traces, torch.profiler traces,
 amd-smi telemetry), parses each run as its files land, stores RunMetrics and a waste budget
 in SQLite and serves them as REST JSON, Server-Sent Events, Prometheus metrics and a
 dashboard page.
CONTROL
echo /etc/goblind/goblind.conf > "$root/DEBIAN/conffiles"
cat > "$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
POSTINST
cat > "$root/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
  systemctl stop goblind.service || true
fi
PRERM
cat > "$root/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
POSTRM
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
deb="$OUT/goblind_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
