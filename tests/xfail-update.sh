#!/bin/sh
# tests/xfail-update.sh BUILD SHARED_SUITE DEBIAN_SUITE: rewrite the
# expected-failure lists from what fails now. Review `git diff tests/xfail`
# afterwards: a line may only go away (a case fixed) or state a true reason.
B=$1
[ -n "$2" ] && "$B/onnxop" test --failures "$2" >tests/xfail/onnx-node-tests.txt
"$B/onnxop" test --failures "$3" >tests/xfail/debian-node.txt
wc -l tests/xfail/*.txt
