#!/bin/sh
# tests/deps.sh [--check] PKG...: install the Debian packages that are missing
# (as root), or print the exact apt-get line and stop. With --check, only say
# which are missing and the line that installs them (a plain `make`).
# Another apt or dpkg holding its lock (unattended upgrades often do, on a
# fresh machine) is waited for, up to DEPS_LOCK_WAIT seconds (600), saying so.
# DEPS_LOCK_POLL (5) is the seconds between tries (tests/deps_test.sh sets 0).
check=
[ "$1" = --check ] && { check=1; shift; }
command -v dpkg-query >/dev/null 2>&1 || exit 0 # not Debian: the build says what it lacks
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ -n "$check" ]; then
  echo "onnxop: the build needs Debian packages that are missing. Run, as root:" >&2
  echo "  apt-get install -y$missing" >&2
  echo "  (or make deps, as root, which runs it)" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "onnxop: missing Debian packages. Run, as root:" >&2
  echo "  apt-get install -y$missing" >&2
  exit 1
fi
WAIT=${DEPS_LOCK_WAIT:-600}
POLL=${DEPS_LOCK_POLL:-5}
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT
# apt CMD...: run apt-get quietly; while it fails only because another apt or
# dpkg holds a lock, wait (saying so once) and try again
apt() {
  waited=0
  while :; do
    apt-get -qq "$@" >"$log" 2>&1 && return 0
    grep -q 'Could not get lock' "$log" || { cat "$log" >&2; return 1; }
    if [ "$waited" -ge "$WAIT" ]; then
      echo "onnxop: gave up after $WAIT s waiting for the lock:" >&2
      grep 'Could not get lock' "$log" | head -n 1 >&2
      return 1
    fi
    if [ "$waited" = 0 ]; then
      echo "onnxop: waiting for another apt or dpkg to finish (up to $WAIT s):"
      grep 'Could not get lock' "$log" | head -n 1 | sed 's/^E: /  /'
    fi
    sleep "$POLL"
    waited=$((waited + (POLL > 0 ? POLL : 1)))
  done
}
echo "onnxop: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt update && apt install -y --no-install-recommends $missing && exit 0
echo "onnxop: apt-get install failed; run: apt-get update && apt-get install -y$missing" >&2
exit 1
