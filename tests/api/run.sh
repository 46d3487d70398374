#!/bin/sh
# tests/api/run.sh BUILD SUITE [installed|asan|tsan]: the library's tests.
#   installed (the default): `make install` into BUILD/api-root, then the
#     programs of tests/api/ and examples/run_case.c built against that copy
#     with pkg-config alone (PKG_CONFIG_PATH, PKG_CONFIG_SYSROOT_DIR), run
#     with LD_LIBRARY_PATH into it; the header compiled as C++; a static
#     link; the shared library's exports (onnxop_* only) and SONAME; the
#     seed examples (also through the installed Python package) and the
#     node-test suite SUITE (its cases not in
#     tests/xfail/onnx-node-tests.txt; for Debian's node cases,
#     debian-node.txt) through the API
#   asan: errors.c, features.c, suite.c and load.c linked with
#     BUILD/asan/libonnxop.a (a leak or a use after free in the API is a
#     failure)
#   tsan: threads.c linked with a ThreadSanitizer build of the library
#     (BUILD/tsan/libonnxop.a): runs at once give the bytes of runs one at a
#     time, with no report, for two large models and every suite case
# Prints one line per check that fails, then "api: N passed, M failed".
B=$1
SUITE=$2
MODE=${3:-installed}
O=$B/api/$MODE
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# a program's "...: N passed, M failed" line added to the totals
take() { # NAME OUTPUT-FILE RC
  line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1)
  p=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')
  f=$(printf '%s' "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
  pass=$((pass + ${p:-0}))
  fail=$((fail + ${f:-0}))
  if [ "$3" != 0 ] || [ -z "$line" ] || [ "${f:-1}" != 0 ]; then
    [ -n "$line" ] && [ "${f:-1}" != 0 ] || fail=$((fail + 1))
    echo "FAIL $1 (exit status $3):"
    grep -v ' passed, ' "$2" | head -n 40
  fi
}
rm -rf "$O"
mkdir -p "$O/tmp"
LIBS_IN="$(pkg-config --libs libprotobuf-c libcjson zlib libpcre2-8 2>/dev/null) -lunistring -lm -pthread"
WARN="-std=c11 -Wall -Wextra -Werror -g"

# the cases: every case of SUITE that passes (not in the xfail list)
CASES=$O/cases.txt
if [ -d "$SUITE" ]; then
  case $SUITE in
  */libonnx-testdata/data/node) XF=tests/xfail/debian-node.txt ;; # Debian's, when the shared suite is skipped
  *) XF=tests/xfail/onnx-node-tests.txt ;;
  esac
  sed -n 's/^\(test_[^:]*\):.*/\1/p' "$XF" | sort >"$O/xfail.txt"
  for d in "$SUITE"/test_*/; do basename "$d"; done | sort | comm -23 - "$O/xfail.txt" |
    sed "s|^|$SUITE/|" >"$CASES"
else
  : >"$CASES"
  echo "api: the node-test suite $SUITE is missing: its cases are not run"
fi

case $MODE in
asan)
  for t in errors suite load features; do
    if cc $WARN -fsanitize=address,undefined -fno-omit-frame-pointer -Iinclude -o "$O/$t" \
      "tests/api/$t.c" "$B/asan/libonnxop.a" $LIBS_IN 2>"$O/$t.cc"; then ok; else bad "cc $t:"; cat "$O/$t.cc"; fi
  done
  "$O/errors" "$SUITE" "$O/tmp" >"$O/errors.out" 2>&1
  take "errors (asan)" "$O/errors.out" $?
  timeout 300 "$O/load" >"$O/load.out" 2>&1 # a load that never ends fails, after 300 s
  take "load (asan)" "$O/load.out" $?
  "$O/features" "$SUITE" "$O/tmp" >"$O/features.out" 2>&1
  take "features (asan)" "$O/features.out" $?
  "$O/suite" $(cat "$CASES") >"$O/suite.out" 2>&1
  take "suite (asan)" "$O/suite.out" $?
  ;;
tsan)
  if cc $WARN -O1 -fsanitize=thread -Iinclude -o "$O/threads" tests/api/threads.c "$B/tsan/libonnxop.a" $LIBS_IN \
    2>"$O/threads.cc"; then ok; else bad "cc threads:"; cat "$O/threads.cc"; fi
  # two models large enough for the kernels' thread pool, then every
  # passing case of the suite (about 8 s under TSan)
  X=$B/onnxop
  "$X" make MatMul --input 'A:float32[256,512]' --input 'B:float32[512,256]' --random 1 --case "$O/matmul" >/dev/null &&
    "$X" make Conv --input 'X:float32[1,8,64,64]' --input 'W:float32[16,8,3,3]' -a 'pads=[1,1,1,1]' --random 2 \
      --case "$O/conv" >/dev/null && ok || bad "onnxop make: the large cases"
  TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$O/threads" "$O/matmul" "$O/conv" $(cat "$CASES") >"$O/threads.out" 2>&1
  rc=$?
  if grep -q 'WARNING: ThreadSanitizer' "$O/threads.out"; then
    bad "ThreadSanitizer: $(grep -c 'WARNING: ThreadSanitizer' "$O/threads.out") reports (in $O/threads.out)"
    grep -A12 'WARNING: ThreadSanitizer' "$O/threads.out" | head -n 40
  fi
  take "threads (tsan)" "$O/threads.out" $rc
  ;;
installed)
  R=$(pwd)/$B/api-root
  rm -rf "$R"
  if make --no-print-directory -s install DESTDIR="$R" PREFIX=/usr B="$B" >"$O/install.out" 2>&1; then ok
  else bad "make install:"; cat "$O/install.out"; fi
  export PKG_CONFIG_PATH="$R/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$R"
  CFL=$(pkg-config --cflags onnxop) && LIBS=$(pkg-config --libs onnxop) && ok || bad "pkg-config finds no onnxop"
  [ "$(pkg-config --modversion onnxop)" = "$(sed -n 's/#define OX_VERSION "\(.*\)"/\1/p' core/ox.h)" ] && ok ||
    bad "onnxop.pc's version is not core/ox.h's OX_VERSION"
  case "$CFL $LIBS" in *"$R"*) ok ;; *) bad "pkg-config's flags do not point into $R: $CFL $LIBS" ;; esac
  V=$(sed -n 's/#define OX_VERSION "\(.*\)"/\1/p' core/ox.h)
  SO=$R/usr/lib/libonnxop.so.$V
  # the command is a client of the library: test and run (bind.c binds
  # run's and bench's --in) load the model, read the values, run and
  # compare through the entries the public functions wrap (api/api.h;
  # onnxop_compare), never through core/, io/ and proto/ directly; bench
  # times ox_run_with alone, on what the library loaded
  direct='ox_model_load ox_model_decode ox_prepare ox_load_value ox_read_value ox_pb_decode ox_json_decode ox_npy_decode'
  for o in test:"ox_api_model_load ox_api_value_read ox_api_run onnxop_compare":"$direct ox_run ox_run_with ox_compare ox_compare_full" \
    run:"ox_api_model_load ox_api_run ox_bind_inputs":"$direct ox_run ox_run_with" \
    bind:"ox_api_value_read":"$direct ox_run ox_run_with" bench:"ox_api_model_load ox_bind_inputs":"$direct"; do
    f=$B/obj/cli/${o%%:*}.o
    need=${o#*:} need=${need%%:*} banned=${o##*:}
    calls=" $(nm --undefined-only "$f" 2>/dev/null | awk '{print $2}' | tr '\n' ' ') "
    for s in $need; do
      case $calls in *" $s "*) ok ;; *) bad "$f does not call $s (the command is to go through the library)" ;; esac
    done
    for s in $banned; do
      case $calls in *" $s "*) bad "$f calls $s itself, not through the library (api/api.h)" ;; *) ok ;; esac
    done
  done
  # and every other command too: no cli object loads a model, reads a value
  # or runs a graph but through api/ (api/api.h's entries in the command's
  # forms: ox_api_value_load, ox_api_model_read, ox_api_run_values; make's
  # and spec's: ox_api_value_json, ox_api_model_prepare, ox_api_model_run)
  for f in $B/obj/cli/*.o; do
    calls=" $(nm --undefined-only "$f" 2>/dev/null | awk '{print $2}' | tr '\n' ' ') "
    for s in $direct ox_run ox_run_with ox_prepare_with; do
      case $calls in *" $s "*) bad "$f calls $s itself, not through the library (api/api.h)" ;; *) ok ;; esac
    done
  done
  # only the API is exported, under the SONAME
  others=$(nm -D --defined-only "$SO" | awk '{print $3}' | grep -v '^onnxop_')
  [ -z "$others" ] && ok || bad "libonnxop.so exports more than onnxop_*: $(echo $others | head -c 300)"
  [ "$(nm -D --defined-only "$SO" | grep -c ' T onnxop_')" -ge 40 ] && ok || bad "libonnxop.so exports too few onnxop_ functions"
  objdump -p "$SO" | grep -q 'SONAME *libonnxop.so.0$' && ok || bad "libonnxop.so.$V has no SONAME libonnxop.so.0"
  # nothing process-wide: the command's list of pending outputs and its
  # signal handlers (cli/files.c) are not in either library, which never
  # installs a handler nor blocks a signal
  for lib in "$R/usr/lib/libonnxop.a" "$SO"; do
    cmd=$(nm "$lib" 2>/dev/null | awk '$2 ~ /^[TtDdBb]$/ {print $3}' |
      grep -xE 'ox_(claim_output|out_open|write_file_tmp|commit_files|discard_files|mkdir_p|save_value|save_npz)' | sort -u)
    [ -z "$cmd" ] && ok || bad "$(basename "$lib") holds the command's outputs: $(echo $cmd)"
    sig=$(nm -u "$lib" 2>/dev/null | awk '{print $NF}' | sed 's/@.*//' | grep -xE 'sigaction|signal|sigprocmask|pthread_sigmask|raise' | sort -u)
    [ -z "$sig" ] && ok || bad "$(basename "$lib") handles signals: it calls $(echo $sig)"
  done
  [ "$(readlink "$R/usr/lib/libonnxop.so.0")" = "libonnxop.so.$V" ] && ok || bad "no libonnxop.so.0 symlink"
  export LD_LIBRARY_PATH="$R/usr/lib"
  for t in tests/api/errors.c tests/api/features.c tests/api/suite.c tests/api/load.c examples/run_case.c; do
    n=$(basename "$t" .c)
    if cc $WARN -o "$O/$n" "$t" $CFL $LIBS 2>"$O/$n.cc"; then ok; else bad "cc $t:"; cat "$O/$n.cc"; fi
  done
  ldd "$O/suite" | grep -q "libonnxop.so.0 => $R/usr/lib/libonnxop.so.0" && ok ||
    bad "suite is not linked with the installed libonnxop.so.0: $(ldd "$O/suite" | grep onnxop)"
  # the header is C++ too
  printf '#include <onnxop.h>\nint main() { onnxop_error *e = nullptr; return onnxop_error_code(e) + (onnxop_version() == nullptr); }\n' \
    >"$O/cxx.cc"
  if c++ -Wall -Wextra -Werror -o "$O/cxx" "$O/cxx.cc" $CFL $LIBS 2>"$O/cxx.cc.out" && "$O/cxx"; then ok
  else bad "the header as C++:"; cat "$O/cxx.cc.out"; fi
  # statically linked: no libonnxop.so needed
  if cc $WARN -o "$O/suite-static" tests/api/suite.c $CFL -L"$R/usr/lib" -Wl,-Bstatic -lonnxop -Wl,-Bdynamic \
    $(pkg-config --static --libs onnxop | sed 's/ *-L[^ ]*//g; s/ *-lonnxop\b//g') 2>"$O/static.cc"; then ok
  else bad "static link:"; cat "$O/static.cc"; fi
  objdump -p "$O/suite-static" 2>/dev/null | grep -q 'NEEDED.*libonnxop' && bad "suite-static needs libonnxop.so" || ok

  # the seed examples (tests/seeds), as ONNX test cases made by the installed onnxop
  X=$R/usr/bin/onnxop
  S=tests/seeds
  T=$O/seeds
  mkdir -p "$T"
  mk() { # NAME MODEL WANT INPUT...
    c="$T/cases/$1" model=$2 want=$3
    shift 3
    mkdir -p "$c/test_data_set_0" && cp "$model" "$c/model.onnx"
    k=0
    for i in "$@"; do "$X" convert "$i" "$c/test_data_set_0/input_$k.pb" && k=$((k + 1)); done
    "$X" convert "$want" "$c/test_data_set_0/output_0.pb"
  }
  "$X" make SequenceAt --opset 11 --input 'input_seq:seq(tensor(float))' --input 'position:int64[]' \
    --output 'output_tensor:float32[?,?]' -o "$T/sequence_at.onnx" &&
    "$X" make OptionalGetElement --opset 18 --input 'opt_seq:optional(seq(tensor(int32)))' \
      --output 'output_sequence:seq(tensor(int32))' -o "$T/oge_seq.onnx" &&
    "$X" make OptionalGetElement --opset 18 --input 'opt:optional(tensor(float))' \
      --output 'output:float32[2,3]' -o "$T/oge_tensor.onnx" &&
    mk sequence_at_neg "$T/sequence_at.onnx" $S/want_neg.json $S/seq3.json $S/pos_neg.json &&
    mk sequence_at_pos0 "$T/sequence_at.onnx" $S/want_pos0.json $S/seq3.json $S/pos_pos0.json &&
    mk sequence_at_pos2 "$T/sequence_at.onnx" $S/want_pos2.json $S/seq3.json $S/pos_pos2.json &&
    mk oge_seq "$T/oge_seq.onnx" $S/want_opt_seq.json $S/opt_seq.json &&
    mk oge_tensor "$T/oge_tensor.onnx" $S/want_opt_tensor.json $S/opt_tensor.json && ok || bad "the seed cases"
  for prog in suite suite-static; do
    "$O/$prog" "$T"/cases/* >"$O/seeds-$prog.out" 2>&1
    take "seeds ($prog)" "$O/seeds-$prog.out" $?
    grep -q '^api suite: 5 passed, 0 failed$' "$O/seeds-$prog.out" && ok || bad "$prog: not the 5 seed cases"
  done
  # the example prints each output (SequenceAt(seq3, -2): the second tensor)
  "$O/run_case" "$T/cases/sequence_at_neg" >"$O/example.out" 2>&1
  [ $? = 0 ] && [ "$(cat "$O/example.out")" = "output_tensor: tensor(float) = 0 1 2 3 4 5" ] && ok ||
    bad "examples/run_case: $(cat "$O/example.out")"
  "$O/run_case" "$T/cases/oge_seq" >"$O/example2.out" 2>&1
  [ "$(cat "$O/example2.out")" = "output_sequence: seq(tensor(int32)) of 1" ] && ok ||
    bad "examples/run_case (a sequence): $(cat "$O/example2.out")"
  "$O/run_case" "$O/nothing" >"$O/example3.out" 2>&1
  [ $? = 1 ] && grep -q 'nothing/model.onnx: cannot open model' "$O/example3.out" && ok ||
    bad "examples/run_case (no case): $(cat "$O/example3.out")"

  # the installed Python package, loading the library by its SONAME
  # (debian/tests/python: the seed examples through onnxop.Session)
  [ -f "$R/usr/lib/python3/dist-packages/onnxop/__init__.py" ] && ok || bad "make install: no Python package"
  if /usr/bin/python3 -c 'import numpy, cffi' 2>/dev/null; then
    env -u ONNXOP_LIBRARY PYTHONPATH="$R/usr/lib/python3/dist-packages" ONNXOP_COMMAND="$X" \
      /usr/bin/python3 debian/tests/python >"$O/python.out" 2>&1 && ok || { bad "debian/tests/python:"; cat "$O/python.out"; }
  else
    bad "python3-numpy and python3-cffi are missing: the installed Python package is not tried"
  fi
  # the errors, and the node-test suite through the installed library
  "$O/errors" "$SUITE" "$O/tmp" >"$O/errors.out" 2>&1
  take errors "$O/errors.out" $?
  timeout 120 "$O/load" >"$O/load.out" 2>&1 # a load that never ends fails, after 120 s
  take load "$O/load.out" $?
  "$O/features" "$SUITE" "$O/tmp" >"$O/features.out" 2>&1
  take features "$O/features.out" $?
  "$O/suite" $(cat "$CASES") >"$O/suite.out" 2>&1
  take suite "$O/suite.out" $?
  [ "$(grep -c . "$CASES")" -ge 300 ] && ok || bad "only $(grep -c . "$CASES") suite cases"
  ;;
esac
echo "api: $pass passed, $fail failed"
[ $fail = 0 ]
