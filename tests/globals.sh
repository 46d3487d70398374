#!/bin/sh
# tests/globals.sh BUILD: the library keeps no state of its own. Every
# variable with static storage in the library's objects (core/, io/, proto/,
# ops/, api/: a writable global, a static, a function's static, a
# thread-local; constants are fine), read from the built objects (objdump's
# .bss, .data, .tbss and .tdata sections), must be listed in
# tests/globals.txt with its reason; a run's state travels in ox_ctx and
# the run options instead. cli/ (the command, one process) may keep its own.
# A listed variable the objects no longer have is a stale line, and fails
# too. Prints "globals: N passed, M failed".
B=${1:-build}
O=$B/obj
LIST=tests/globals.txt
pass=0
fail=0
[ -d "$O/core" ] || { echo "globals: $O has no objects (run make)"; echo "globals: 0 passed, 1 failed"; exit 1; }
found=$B/globals.found
listed=$B/globals.listed
: >"$found"
for c in core/*.c io/*.c proto/*.c ops/*.c ops/ml/*.c api/*.c; do
  o=$O/${c%.c}.o
  [ -f "$o" ] || { echo "FAIL globals: $o is missing (run make)"; fail=$((fail + 1)); continue; }
  # "ADDR FLAGS SECTION<tab>SIZE NAME"; a function's static "name.N" is
  # listed as "function-static name" (N is the compiler's)
  objdump -t "$o" | awk -F'\t' -v c="$c" 'NF == 2 {
    n = split($1, a, " "); sec = a[n]; split($2, b, " "); name = b[2]
    if (sec !~ /^\.t?(bss|data)(\.|$)/ || sec ~ /rel\.ro/ || name == sec) next
    sub(/\.[0-9]+$/, "", name)
    print c, name, (sec ~ /^\.t/ ? "thread-local" : "global")
  }' >>"$found"
done
sort -u "$found" -o "$found"
# the list: "FILE NAME KIND  reason...", # comments
grep -v '^#' "$LIST" | awk 'NF >= 4 {print $1, $2, $3}' | sort -u >"$listed"
unlisted=$(comm -23 "$found" "$listed")
stale=$(comm -13 "$found" "$listed")
if [ -n "$unlisted" ]; then
  fail=$((fail + 1))
  echo "FAIL globals: state the library keeps outside a run's context (pass it in ox_ctx or the run"
  echo "  options, or list it in $LIST with its reason):"
  printf '%s\n' "$unlisted" | sed 's/^/  /'
else pass=$((pass + 1)); fi
if [ -n "$stale" ]; then
  fail=$((fail + 1))
  echo "FAIL globals: lines of $LIST the objects no longer have (remove them):"
  printf '%s\n' "$stale" | sed 's/^/  /'
else pass=$((pass + 1)); fi
# every line gives a reason
noreason=$(grep -v '^#' "$LIST" | awk 'NF > 0 && NF < 4')
if [ -n "$noreason" ]; then
  fail=$((fail + 1))
  echo "FAIL globals: lines of $LIST without a reason:"
  printf '%s\n' "$noreason" | sed 's/^/  /'
else pass=$((pass + 1)); fi
echo "globals: $pass passed, $fail failed"
[ "$fail" = 0 ]
