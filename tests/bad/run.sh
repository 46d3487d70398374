#!/bin/sh
# tests/bad/run.sh BUILD: runs onnxop (BUILD/onnxop) on the hostile inputs of
# tests/bad/cases.txt (the format is described at its top). The binary files
# are written at test time by BUILD/bad-gen (tests/bad/gen.c) into
# BUILD/bad-tests/gen. Cases listed in tests/bad/known-gaps.txt are reported
# as known gaps, not as passes; a listed case that passes is a failure (take
# it off the list). The last line is "bad: N passed, M failed"; the exit
# status is non-zero on any failure.
B=${1:-build}
X="$B/onnxop"
D=tests/bad
T="$B/bad-tests"
G="$T/gen"
S=tests/seeds
LIMIT=20 # seconds per run

for f in "$X" "$B/bad-gen"; do
  [ -x "$f" ] || { echo "bad: $f is missing (run make)"; echo "bad: 0 passed, 1 failed"; exit 1; }
done
command -v timeout >/dev/null || { echo "bad: needs timeout (coreutils)"; echo "bad: 0 passed, 1 failed"; exit 1; }
rm -rf "$T" && mkdir -p "$T/out" "$T/prefix" || exit 1
"$B/bad-gen" "$G" || { echo "bad: $B/bad-gen failed"; echo "bad: 0 passed, 1 failed"; exit 1; }

set -f # no globbing: arguments such as x:float32[2,3] stay as written
pass=0
fail=0
gaps=0
O="$T/out/none"
P=

# known-gaps.txt: "NAME: what happens"
gap_reason() { grep -v '^#' "$D/known-gaps.txt" 2>/dev/null | grep -m 1 "^$1:" | sed 's/^[^:]*: *//'; }

# has_fragment FILE FRAGMENT: FILE contains one of the " || "-separated alternatives
has_fragment() {
  rest=$2
  while :; do
    alt=${rest%% || *}
    grep -qF -- "$alt" "$1" && return 0
    [ "$alt" = "$rest" ] && return 1
    rest=${rest#* || }
  done
}

# names_subject ARGS...: stderr names a node, an input, or one of the files in ARGS
names_subject() {
  grep -qE "node '|input '" "$T/err" && return 0
  for a in "$@"; do
    case $a in
    *=*) a=${a#*=} ;;
    esac
    case $a in
    "$T"/*) grep -qF -- "$(basename "$a")" "$T/err" && return 0 ;;
    esac
  done
  return 1
}

# one ARGS...: run onnxop ARGS for the case in $name/$code/$frag; set $why
# to what went wrong, or "" if all is well
one() {
  [ -d "$O" ] || mkdir -p "$O"
  timeout "$LIMIT" "$X" "$@" </dev/null >"$T/out.txt" 2>"$T/err"
  got=$?
  why=
  if [ "$got" = 124 ]; then
    why="did not finish within $LIMIT s (a hang?)"
  elif [ "$got" -ge 128 ]; then
    why="killed by signal $((got - 128))"
  elif grep -qE 'Sanitizer|runtime error:' "$T/err"; then
    why="sanitizer report: $(grep -m 1 -E 'Sanitizer|runtime error:' "$T/err")"
  elif [ "$got" != "$code" ]; then
    why="exit $got, expected $code: $(head -c 300 "$T/err")"
  elif [ "$code" = 0 ]; then
    has_fragment "$T/out.txt" "$frag" || why="stdout lacks '$frag': $(head -c 300 "$T/out.txt")"
  elif ! has_fragment "$T/err" "$frag"; then
    why="stderr lacks '$frag': $(head -c 300 "$T/err")"
  elif [ "$code" != 2 ] && ! names_subject "$@"; then
    why="stderr names no file, node or input: $(head -c 300 "$T/err")"
  fi
  # outputs go to $O, or next to the generated files (a path that is a folder)
  left=$(find "$O" "$G" -mindepth 1 \( -path "$O/*" -o -name '*.tmp.*' \) -prune -print)
  if [ -n "$left" ]; then
    why="${why:+$why; }left a file behind: $(printf '%s\n' "$left" | tr '\n' ' ')"
    printf '%s\n' "$left" | while IFS= read -r f; do rm -rf "$f"; done
  fi
}

# A case's outcome: pass, known gap, or failure ($1: what went wrong or "").
outcome() {
  reason=$(gap_reason "$name")
  if [ -n "$reason" ]; then
    if [ -n "$1" ]; then
      gaps=$((gaps + 1))
      echo "GAP $name: $reason"
      echo "    now: $1" | head -c 600
      echo
    else
      fail=$((fail + 1))
      echo "STALE $name: listed in $D/known-gaps.txt but passes; take it off the list"
    fi
  elif [ -n "$1" ]; then
    fail=$((fail + 1))
    echo "FAIL $name: $1"
  else
    pass=$((pass + 1))
  fi
}

lineno=0
while IFS= read -r line; do
  lineno=$((lineno + 1))
  case $line in
  '' | '#'*) continue ;;
  '+ '*)
    eval "set -- ${line#+ }"
    # the models are broken on purpose: make writes them with --force
    [ "$1" = make ] && { shift; set -- make --force "$@"; }
    if ! timeout "$LIMIT" "$X" "$@" </dev/null >"$T/out.txt" 2>"$T/err"; then
      fail=$((fail + 1))
      echo "FAIL setup ($D/cases.txt:$lineno): onnxop $*: $(head -c 300 "$T/err")"
    fi
    continue ;;
  esac
  name=${line%% *}
  rest=${line#* }
  code=${rest%% *}
  rest=${rest#* }
  args=${rest%% :: *}
  frag=${rest#* :: }
  if [ "$args" = "$rest" ] || [ -z "$frag" ]; then
    fail=$((fail + 1))
    echo "FAIL $D/cases.txt:$lineno: no ' :: FRAGMENT'"
    continue
  fi
  O="$T/out/$name"
  case $args in
  '@prefixes '*)
    # one run per proper prefix of FILE; every run is checked and counted
    eval "set -- ${args#@prefixes }"
    file=$1
    shift
    P="$T/prefix/$name.${file##*.}"
    size=$(wc -c <"$file")
    k=0 bad=0 first=
    while [ "$k" -lt "$size" ]; do
      head -c "$k" "$file" >"$P"
      eval "set -- ${args#@prefixes }"
      shift
      one "$@"
      if [ -n "$why" ]; then
        bad=$((bad + 1))
        [ -n "$first" ] || first="prefix of $k bytes: $why"
      fi
      k=$((k + 1))
    done
    echo "$name: $size prefixes of $(basename "$file"), $bad failed"
    if [ -n "$(gap_reason "$name")" ]; then
      outcome "${first:+$bad of $size prefixes failed; first: $first}"
    else
      pass=$((pass + size - bad))
      fail=$((fail + bad))
      [ -z "$first" ] || echo "FAIL $name: $bad of $size prefixes failed; first: $first"
    fi
    rm -f "$P"
    ;;
  *)
    eval "set -- $args"
    one "$@"
    outcome "$why"
    ;;
  esac
done <"$D/cases.txt"

# every known gap must name a case
grep -v '^#' "$D/known-gaps.txt" 2>/dev/null | grep ':' | sed 's/:.*//' | while read -r g; do
  grep -q "^$g " "$D/cases.txt" || echo "FAIL $D/known-gaps.txt: '$g' is not a case"
done | tee "$T/stale_gaps"
fail=$((fail + $(grep -c . "$T/stale_gaps")))

echo "bad: $gaps known gaps (listed in $D/known-gaps.txt)"
echo "bad: $pass passed, $fail failed"
[ "$fail" = 0 ]
