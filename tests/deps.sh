#!/bin/sh
# tests/deps.sh PKG...: install the Debian packages that are missing (as root),
# or print the exact apt-get line and stop.
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "onnxop: installing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >/dev/null 2>&1 || {
    echo "onnxop: apt-get install failed; run: apt-get update && apt-get install -y$missing" >&2
    exit 1; }
  exit 0
fi
echo "onnxop: missing Debian packages. Run, as root:" >&2
echo "  apt-get install -y$missing" >&2
exit 1
