#!/bin/sh
# tests/analyzer.sh: gcc's static analyser (-fanalyzer) over core/, io/,
# proto/, api/ and cli/, but the files tests/analyzer-skip.txt lists with its
# reasons; any finding fails. Prints "analyzer: N passed, M failed".
pass=0
fail=0
DEPS=$(pkg-config --cflags libprotobuf-c libcjson zlib libpcre2-8 2>/dev/null)
skip=$(grep -v '^#' tests/analyzer-skip.txt | awk 'NF {print $1}')
for f in core/*.c io/*.c proto/*.c api/*.c cli/*.c; do
  case " $(echo $skip) " in *" $f "*) continue ;; esac
  out=$(gcc -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -pthread -I. -Ibuild -Iinclude $DEPS -O1 \
    -fanalyzer -c -o /dev/null "$f" 2>&1)
  if printf '%s' "$out" | grep -q 'warning:\|error:'; then
    fail=$((fail + 1))
    echo "FAIL analyzer: $f"
    printf '%s\n' "$out" | grep -E 'warning:|error:' | head -5
  else
    pass=$((pass + 1))
  fi
done
for f in $skip; do [ -f "$f" ] || { fail=$((fail + 1)); echo "FAIL analyzer: tests/analyzer-skip.txt names $f, which is gone"; }; done
echo "analyzer: $pass passed, $fail failed"
[ "$fail" = 0 ]
