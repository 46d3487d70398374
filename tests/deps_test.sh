#!/bin/sh
# tests/deps_test.sh: tests/deps.sh and the Makefile's check for missing
# build packages, with stand-ins for dpkg-query, id and apt-get on PATH
# (nothing is installed, and no lock is taken).
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
# every package but "here" is missing; we are root
cat >"$T/bin/dpkg-query" <<'X'
#!/bin/sh
for a; do :; done
[ "$a" = here ] && printf 'install ok installed'
exit 0
X
printf '#!/bin/sh\necho 0\n' >"$T/bin/id"
# apt-get: the first $LOCKED calls fail as apt does when another holds the
# dpkg lock; then each call is logged and succeeds
cat >"$T/bin/apt-get" <<'X'
#!/bin/sh
n=$(cat "$STATE/calls" 2>/dev/null || echo 0)
echo $((n + 1)) >"$STATE/calls"
if [ "$n" -lt "$LOCKED" ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
  exit 100
fi
echo "$*" >>"$STATE/log"
X
chmod +x "$T/bin/"*
run() { # LOCKED WAIT ARGS...: deps.sh with the stand-ins
  locked=$1 wait=$2
  shift 2
  rm -f "$T/calls" "$T/log"
  PATH="$T/bin:$PATH" STATE=$T LOCKED=$locked DEPS_LOCK_POLL=0 DEPS_LOCK_WAIT=$wait \
    sh tests/deps.sh "$@" >"$T/out" 2>"$T/err"
}

# nothing missing: nothing run
run 0 10 here
[ $? = 0 ] && [ ! -e "$T/calls" ] && ok || bad "nothing missing: apt-get ran"

# a lock held for three tries: waited for, said once, then installed
run 3 10 here pkg-a pkg-b
rc=$?
[ $rc = 0 ] && ok || bad "lock held 3 tries: exit $rc: $(cat "$T/err")"
[ "$(grep -c 'waiting for another apt or dpkg' "$T/out")" = 1 ] && grep -q 'held by process 4242' "$T/out" && ok ||
  bad "lock held: not said once, naming the holder: $(cat "$T/out")"
grep -q 'install -y --no-install-recommends pkg-a pkg-b' "$T/log" && ok || bad "lock held: not installed: $(cat "$T/log")"

# a lock never released: gives up after the wait, saying so, exit 1
run 1000 3 pkg-a
rc=$?
[ $rc = 1 ] && grep -q 'gave up after 3 s' "$T/err" && ok || bad "lock kept: exit $rc: $(cat "$T/err")"

# another failure: its own message, at once
cat >"$T/bin/apt-get" <<'X'
#!/bin/sh
echo $(( $(cat "$STATE/calls" 2>/dev/null || echo 0) + 1 )) >"$STATE/calls"
echo "E: Unable to locate package pkg-a" >&2
exit 100
X
run 0 10 pkg-a
rc=$?
[ $rc = 1 ] && grep -q 'Unable to locate package pkg-a' "$T/err" && [ "$(cat "$T/calls")" = 1 ] && ok ||
  bad "other failure: exit $rc, $(cat "$T/calls") calls: $(cat "$T/err")"

# --check: says what is missing and the line, installs nothing
run 0 10 --check here pkg-a
rc=$?
[ $rc = 1 ] && grep -q 'apt-get install -y pkg-a$' "$T/err" && [ ! -e "$T/calls" ] && ok ||
  bad "--check: exit $rc: $(cat "$T/err")"

# a plain make without the build packages (here: the .proto files missing, and
# dpkg-query's stand-in calls them all missing) names them, not make's
# "No rule to make target"
PATH="$T/bin:$PATH" make --no-print-directory B="$T/build" PROTO_DIR="$T/none" "$T/build/onnxop" >"$T/out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q 'apt-get install -y gcc make' "$T/out" && grep -q 'python3-onnx' "$T/out" &&
  ! grep -q 'No rule to make target' "$T/out" && ok || bad "plain make: exit $rc: $(cat "$T/out")"
echo "deps: $pass passed, $fail failed"
[ $fail = 0 ]
