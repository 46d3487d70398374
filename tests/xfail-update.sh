#!/bin/sh
# tests/xfail-update.sh BUILD SHARED_SUITE DEBIAN_DATA: rewrite the
# expected-failure lists from what fails now. Review `git diff tests/xfail`
# afterwards: a line may only go away (a case fixed) or state a true reason.
B=$1
header() {
  echo "# Expected failures of $1, one case per line: NAME: the reason it fails."
  echo "# \`make check\` fails when a case not listed here fails, and when a listed case"
  echo "# passes. Regenerate with \`make xfail-update\`; lines should only go away."
}
if [ -n "$2" ]; then
  { header "$2"; "$B/onnxop" test --failures "$2"; } >tests/xfail/onnx-node-tests.txt
fi
for d in node simple pytorch-operator pytorch-converted; do
  { header "$3/$d"; "$B/onnxop" test --failures "$3/$d"; } >"tests/xfail/debian-$d.txt"
done
{ header tests/cases; "$B/onnxop" test --failures tests/cases; } >tests/xfail/own-cases.txt
wc -l tests/xfail/*.txt
