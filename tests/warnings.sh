#!/bin/sh
# tests/warnings.sh "WARN": every C file of the tree compiles without a
# warning under the Makefile's WARN, with gcc and, where it is installed,
# clang (the fuzz build's compiler): -fsyntax-only -Werror, so that a new
# warning fails make check even where no object is rebuilt. Prints
# "warnings: N passed, M failed".
WARN=$1
pass=0
fail=0
files=$(ls core/*.c io/*.c proto/*.c ops/*.c ops/ml/*.c api/*.c cli/*.c tests/unit/*.c tests/fuzz/*.c \
  tests/api/*.c tests/bad/gen.c examples/*.c)
DEPS=$(pkg-config --cflags libprotobuf-c libcjson zlib libpcre2-8 2>/dev/null)
STB=$([ -f /usr/include/stb/stb_image.h ] && echo "-DOX_HAVE_STB -I/usr/include/stb")
for cc in gcc clang; do
  if ! command -v $cc >/dev/null 2>&1; then
    echo "warnings: $cc is not installed; not checked with it"
    continue
  fi
  for f in $files; do
    out=$($cc -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -pthread -I. -Ibuild -Iinclude $DEPS $STB \
      -O2 $WARN -Werror -fsyntax-only "$f" 2>&1)
    if [ $? = 0 ]; then pass=$((pass + 1)); else
      fail=$((fail + 1))
      echo "FAIL warnings ($cc): $f"
      printf '%s\n' "$out" | grep -E 'error|warning' | head -5
    fi
  done
done
echo "warnings: $pass passed, $fail failed"
[ "$fail" = 0 ]
