#!/usr/bin/env bash
# Installs the Debian packages goblind needs to build, test and benchmark (time: bench/parse.sh),
# when they are missing.
# Run as root it uses apt-get; otherwise it only reports what is missing.
set -euo pipefail
PKGS=(cmake make gcc pkg-config libjansson-dev libuv1-dev libmicrohttpd-dev libsqlite3-dev
      zlib1g-dev libgnutls28-dev libcurl4-gnutls-dev libsystemd-dev check openssl python3 python3-jsonschema curl prometheus chromium systemd
      clang libclang-rt-14-dev wrk procps util-linux time)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
