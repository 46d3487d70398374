#!/bin/sh
# tests/xfail-update.sh BUILD SHARED_SUITE DEBIAN_DATA: bring the
# expected-failure lists (tests/xfail/) up to date with what fails now;
# tests/xfail-update.sh BUILD --list LIST SUITE: one list. Line by line: a
# listed case that still fails keeps its line (the reason written there
# stays), a listed case that passes loses it, and a case that newly fails is
# added at the end with onnxop's message as its reason (replace that with
# the true reason). Review `git diff tests/xfail` afterwards. A suite that
# cannot be run (missing, or onnxop refuses it) leaves its list untouched.
B=$1
status=0
header() {
  echo "# Expected failures of $1, one case per line: NAME: the reason it fails."
  echo "# \`make check\` fails when a case not listed here fails, and when a listed case"
  echo "# passes. Update with \`make xfail-update\`; lines should only go away."
}

update() { # LIST SUITE
  list=$1
  suite=$2
  if [ ! -d "$suite" ]; then
    echo "xfail-update: $suite is missing; $list left as it is" >&2
    status=1
    return
  fi
  err=$list.err
  now=$("$B/onnxop" test --failures "$suite" 2>"$err")
  rc=$?
  if [ $rc -gt 1 ] || [ -s "$err" ]; then # exit 1 is "some case failed"
    echo "xfail-update: onnxop test $suite (exit $rc) did not run; $list left as it is:" >&2
    cat "$err" >&2
    rm -f "$err"
    status=1
    return
  fi
  rm -f "$err"
  [ -f "$list" ] || header "$suite" >"$list"
  # the comment lines, then the listed cases that still fail (their lines as
  # they are), then the new failures ("NAME: message")
  printf '%s\n' "$now" | awk -v list="$list" '
    BEGIN {
      while ((getline l < list) > 0) {
        if (l ~ /^#/) { print l; continue }
        if (l == "") continue
        name = l; sub(/:.*/, "", name)
        listed[name] = l; order[++k] = name
      }
    }
    $0 != "" { name = $0; sub(/:.*/, "", name); fails[name] = $0; seen[++m] = name }
    END {
      for (i = 1; i <= k; i++) if (order[i] in fails) print listed[order[i]]
      for (i = 1; i <= m; i++) if (!(seen[i] in listed)) print fails[seen[i]]
    }' >"$list.new" && mv "$list.new" "$list"
}

if [ "$2" = --list ]; then
  update "$3" "$4"
  exit $status
fi
if [ -n "$2" ]; then
  update tests/xfail/onnx-node-tests.txt "$2"
fi
for d in node simple pytorch-operator pytorch-converted; do
  update "tests/xfail/debian-$d.txt" "$3/$d"
done
update tests/xfail/own-cases.txt tests/cases
wc -l tests/xfail/*.txt
exit $status
