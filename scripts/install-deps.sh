#!/usr/bin/env bash
# Installs the Debian packages goblind needs, when they are missing.
#   install-deps.sh          what building and running need (`make run`, `make build`, `make deb`)
#   install-deps.sh --test   that plus the test and benchmark tools (`make test`): Check, Python
#                            with jsonschema, Prometheus/promtool, chromium, clang (fuzzers), wrk...
#   --list                   print the package names instead of installing
# Run as root it uses apt-get; otherwise it only reports what is missing.
set -euo pipefail
BUILD_PKGS=(cmake make gcc pkg-config libjansson-dev libuv1-dev libmicrohttpd-dev libsqlite3-dev
            zlib1g-dev libgnutls28-dev libcurl4-gnutls-dev libsystemd-dev libzip-dev)
TEST_PKGS=(check openssl python3 python3-jsonschema curl prometheus chromium systemd clang libclang-rt-14-dev
           wrk procps util-linux time dpkg-dev man-db lintian binutils)
# npm (tests/openapi_lint.sh installs a pinned @redocly/cli with it): Debian's package only when no
# npm is there already (a Node.js build of another origin ships its own, and Debian's conflicts)
command -v npm >/dev/null 2>&1 || TEST_PKGS+=(npm)
want=("${BUILD_PKGS[@]}")
list=0
for arg in "$@"; do
  case $arg in
    --test) want+=("${TEST_PKGS[@]}") ;;
    --list) list=1 ;;
    *) echo "usage: install-deps.sh [--test] [--list]" >&2; exit 2 ;;
  esac
done
if [ "$list" = 1 ]; then printf '%s\n' "${want[@]}"; exit 0; fi
missing=()
for p in "${want[@]}"; do
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
