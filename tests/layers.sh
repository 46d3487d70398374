#!/bin/sh
# tests/layers.sh BUILD: the folders keep to their jobs, read from the built
# objects (nm) and the sources. Prints "layers: N passed, M failed".
#   - proto/ includes nothing of io/ and calls nothing io/ defines (file
#     opening and the varint are core/sys.c's); io/json.c calls nothing
#     proto/ defines (the type helpers are core/value.c's);
#   - core/ calls nothing ops/, io/, proto/, api/ or cli/ define, but the
#     list of families (ops/families.c: core knows the row type, not the
#     operators);
#   - ops/ calls nothing io/, proto/, api/ or cli/ define;
#   - ops/conv_paths.c calls nothing ops/conv.c defines (one direction);
#   - cli/ calls nothing proto/ defines (models are read, prepared, run and
#     written through api/, which tests/api/run.sh checks too);
#   - every exported symbol is used by another file (else it is static).
B=${1:-build}
O=$B/obj
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL layers: $*"; }

[ -d "$O/core" ] || { echo "layers: $O has no objects (run make)"; echo "layers: 0 passed, 1 failed"; exit 1; }
# the objects of the sources there are now (not one left from a removed file)
objs() { for d in "$@"; do for c in $d/*.c; do echo "$O/${c%.c}.o"; done; done; }
# the ox_ symbols each folder's objects define, and those they call
defs() { nm -g --defined-only "$@" 2>/dev/null | awk '$2 ~ /^[TDBRC]$/ {print $3}' | sort -u; }
uses() { nm -u "$@" 2>/dev/null | awk '{print $2}' | grep '^ox_' | sort -u; }
for d in core io proto ops api cli; do
  defs $(objs $d $([ $d = ops ] && echo ops/ml)) >"$B/layers.def.$d"
done

# FOLDER OBJECTS... : none of what the objects call is defined in FOLDER
calls_none_of() {
  what=$1 folder=$2
  shift 2
  hit=$(uses "$@" | comm -12 - "$B/layers.def.$folder" | grep -vx "${ALLOW:-}" | tr '\n' ' ')
  [ -z "$hit" ] && ok || bad "$what calls $folder/'s $hit"
}

if grep -n '#include.*io/\|#include "io\.h"' proto/*.c proto/*.h; then bad "proto/ includes io/"; else ok; fi
calls_none_of "proto/" io $(objs proto)
calls_none_of "io/json.c" proto "$O"/io/json.o
for f in ops io proto api cli; do
  ALLOW=ox_families calls_none_of "core/" $f $(objs core)
done
for f in io proto api cli; do
  calls_none_of "ops/" $f $(objs ops ops/ml)
done
calls_none_of "cli/" proto $(objs cli)
defs "$O/ops/conv.o" >"$B/layers.def.conv"
hit=$(uses "$O/ops/conv_paths.o" | comm -12 - "$B/layers.def.conv" | tr '\n' ' ')
[ -z "$hit" ] && ok || bad "ops/conv_paths.c calls ops/conv.c's $hit (conv.c calls conv_paths.c, not back)"

# Exported symbols are kept to what another file uses: each global symbol an
# object defines is called by another object, or by the tests and examples
# that link the objects directly (tests/unit, tests/fuzz, tests/api,
# examples); else it is to be static. The public API (onnxop_*) and
# stb_image (compiled into ops/imagedecoder.c) aside.
all=$(objs core io proto ops ops/ml api cli)
for o in $all; do nm -u "$o" | awk -v o="$o" '{print $2, o}'; done | sort >"$B/layers.uses"
for o in $all; do
  nm -g --defined-only "$o" | awk '$2 ~ /^[TDBRC]$/ {print $3}' | grep -v '^onnxop_\|^stbi_' | while read -r s; do
    awk -v s="$s" -v o="$o" '$1 == s && $2 != o {f = 1} END {exit !f}' "$B/layers.uses" && continue
    grep -qw "$s" tests/unit/*.[ch] tests/fuzz/*.[ch] tests/api/*.c examples/*.c 2>/dev/null && continue
    echo "$s ${o#$O/}"
  done
done >"$B/layers.lonely"
if [ -s "$B/layers.lonely" ]; then
  bad "exported but used by no other file (make them static): $(sed 's/ / in /' "$B/layers.lonely" | tr '\n' ';')"
else ok; fi

rm -f "$B"/layers.def.* "$B/layers.uses" "$B/layers.lonely"
echo "layers: $pass passed, $fail failed"
[ "$fail" = 0 ]
