# tests/cli/runner.sh: onnxop test as a runner (statuses, reports, choosing
# cases, tolerances, shards) and onnxop report; sourced by tests/cli/run.sh
# (uses its X, T, S and helpers, and the cases it made). SUITE: the
# 1802-case node-test suite, or empty.

# ---- a suite with one case of each status ----
R="$T/runner"
rm -rf "$R" && mkdir -p "$R"
st="$R/st"
mkdir -p "$st"
cp -r "$T/cases/test_cc_sequence_at_neg" "$st/st_pass"
cp -r "$T/cases/wrong" "$st/st_fail"
cp -r "$T/cases/test_cc_sequence_at_neg" "$st/st_error" && cp "$T/trunc.onnx" "$st/st_error/model.onnx"
mkdir -p "$st/st_unsupported/test_data_set_0" && cp "$T/unknown.onnx" "$st/st_unsupported/model.onnx"
"$X" convert 'float32[2]:1,2' "$st/st_unsupported/test_data_set_0/input_0.pb"
"$X" convert 'float32[2]:1,2' "$st/st_unsupported/test_data_set_0/output_0.pb"
mkdir -p "$R/crash" "$R/hang"
cp -r "$T/cases/test_cc_sequence_at_neg" "$R/crash/st_crash"
cp -r "$T/cases/test_cc_sequence_at_neg" "$R/hang/st_timeout"
hooks="env ONNXOP_TEST_CRASH=st_crash ONNXOP_TEST_HANG=st_timeout"

# the crash and hang hooks exist in the test build only (the ASan build,
# -DOX_FAULT_INJECTION): the statuses they make are checked there
if "$X" --version | grep -q "test build"; then
  # each status by its name; the summary line lists them before "N passed, M failed"
  expect 1 st_text $hooks "$X" test -j 3 --timeout 2 "$st" "$R/crash" "$R/hang"
  out_has st_text "FAIL st_fail: test_data_set_0 output 0 'output_tensor': element [0, 0]: expected -1, got 6"
  out_has st_text "ERROR st_error: "
  out_has st_text "UNSUPPORTED st_unsupported: "
  out_has st_text "CRASH st_crash: crashed (signal 6"
  out_has st_text "TIMEOUT st_timeout: timed out after 2 s"
  out_lacks st_text "st_pass"
  out_has st_text "1 fail, 1 error, 1 unsupported, 1 crash, 1 timeout; 1 passed, 5 failed"
  expect 1 st_json $hooks "$X" test -j 3 --timeout 2 --json "$st" "$R/crash" "$R/hang"
  jsonok st_json
  for s in pass fail error unsupported; do
    out_has st_json '{"name":"st_'$s'","path":"'"$st/st_$s"'","status":"'$s'",'
  done
  out_has st_json '{"name":"st_crash","path":"'"$R/crash/st_crash"'","status":"crash","message":"crashed (signal 6'
  out_has st_json '{"name":"st_timeout","path":"'"$R/hang/st_timeout"'","status":"timeout","message":"timed out after 2 s"'
  out_has st_json '"statuses":{"pass":1,"fail":1,"error":1,"unsupported":1,"crash":1,"timeout":1,"xfail":0,"xpass":0,"stale":0,"duplicate":0}'
  # listed in --xfail, each failing status is an expected failure; unsupported too
  printf 'st_unsupported: an operator this build lacks\nst_crash: crashes\nst_fail: wrong\nst_error: bad model\n' >"$R/st.xfail"
  ONNXOP_TEST_CRASH=st_crash expect 0 st_xfail "$X" test --xfail "$R/st.xfail" "$st" "$R/crash"
  out_has st_xfail "4 xfail; 1 passed, 0 failed"
  head -n 2 "$R/st.xfail" >"$R/st2.xfail"
  ONNXOP_TEST_CRASH=st_crash expect 0 st_xfail_v "$X" test -v --xfail "$R/st2.xfail" "$R/crash" "$st/st_unsupported"
  out_has st_xfail_v "XFAIL st_crash: crashed (signal 6"
  out_has st_xfail_v "XFAIL st_unsupported: "

  # results print as cases finish: the failure is on stdout while a case still runs
  ONNXOP_TEST_HANG=st_timeout "$X" test -j 2 --timeout 4 "$R/hang" "$st/st_fail" >"$R/live.out" 2>&1 &
  live=$!
  k=0
  while [ $k -lt 30 ] && ! grep -qs "FAIL st_fail" "$R/live.out"; do sleep 0.1; k=$((k + 1)); done
  if grep -q "FAIL st_fail" "$R/live.out" && kill -0 $live 2>/dev/null; then ok; else bad "live: FAIL st_fail not printed while st_timeout ran: $(cat "$R/live.out")"; fi
  wait $live
fi

# -q: the summary alone; -v (--verbose): passing cases too
expect 1 st_quiet "$X" test --quiet "$st"
if [ "$(cat "$T/st_quiet.out")" = "1 fail, 1 error, 1 unsupported; 1 passed, 3 failed" ]; then ok; else bad "st_quiet: $(cat "$T/st_quiet.out")"; fi
expect 0 st_verbose "$X" test --verbose "$st/st_pass"
out_has st_verbose "PASS st_pass"

# live progress: a counter on stderr when it is a terminal, and only then
expect 1 st_tty python3 tests/cli/on_tty.py "$R/tty.err" "$X" test -j 1 "$st"
if grep -q "\[4/4\] 1 passed, 3 failed, .* s, ETA .* s" "$R/tty.err"; then ok; else bad "st_tty: no progress on a terminal: $(cat -v "$R/tty.err" | head -c 300)"; fi
if grep -qsF "ETA" "$T/st_quiet.err" "$T/st_text.err"; then bad "progress on stderr that is no terminal"; else ok; fi
expect 1 st_tty_quiet python3 tests/cli/on_tty.py "$R/tty_q.err" "$X" test -q "$st"
if [ -s "$R/tty_q.err" ] && grep -q ETA "$R/tty_q.err"; then bad "st_tty_quiet: progress with -q"; else ok; fi

# two suites that both hold a case of one name: told apart by path
mkdir -p "$R/a" "$R/b"
cp -r "$T/cases/test_cc_sequence_at_neg" "$R/a/test_same"
cp -r "$T/cases/wrong" "$R/b/test_same"
expect 1 same_name "$X" test "$R/a" "$R/b"
out_has same_name "FAIL $R/b/test_same: test_data_set_0 output 0"
expect 1 same_name_failures "$X" test --failures "$R/a" "$R/b/"
out_has same_name_failures "$R/b/test_same: test_data_set_0 output 0"
expect 1 same_name_json "$X" test --json "$R/a" "$R/b"
out_has same_name_json '{"name":"test_same","path":"'"$R/a/test_same"'","status":"pass"'
out_has same_name_json '{"name":"test_same","path":"'"$R/b/test_same"'","status":"fail"'

# ---- choosing cases: -k, --exclude, --list, --shard, --fail-fast ----
expect 0 list_all "$X" test --list "$st"
printf '%s\n' "$st/st_error" "$st/st_fail" "$st/st_pass" "$st/st_unsupported" >"$R/list_all.want"
same_text list_all "$R/list_all.want"
expect 0 list_k "$X" test --list -k 'pass|fail' --exclude '^st_f' "$st"
printf '%s\n' "$st/st_pass" >"$R/list_k.want"
same_text list_k "$R/list_k.want"
expect 1 k_run "$X" test -k 'st_(pass|fail)$' "$st"
out_has k_run "1 fail; 1 passed, 1 failed"
out_lacks k_run "st_error"
expect 1 list_none "$X" test --list -k nomatch "$st"
err_has list_none "onnxop test: no case is chosen (4 found)"
expect 1 k_none "$X" test -k nomatch "$st"
err_has k_none "no case is chosen (4 found): nothing was checked"
expect 2 k_bad "$X" test -k '(' "$st"
err_has k_bad "onnxop test: -k '(': "
expect 2 list_json "$X" test --list --json "$st"
# a case given twice (its suite and itself) runs once
expect 0 list_twice "$X" test --list "$st" "$st/st_pass"
same_text list_twice "$R/list_all.want"
# shards: round-robin over the chosen cases in order; together, each case once
expect 0 shard1 "$X" test --list --shard 1/2 "$st"
printf '%s\n' "$st/st_error" "$st/st_pass" >"$R/shard1.want"
same_text shard1 "$R/shard1.want"
expect 0 shard2 "$X" test --list --shard 2/2 "$st"
printf '%s\n' "$st/st_fail" "$st/st_unsupported" >"$R/shard2.want"
same_text shard2 "$R/shard2.want"
expect 0 shard_k "$X" test --list --shard 2/2 -k 'st_(pass|fail|unsupported)' "$st"
printf '%s\n' "$st/st_pass" >"$R/shard_k.want"
same_text shard_k "$R/shard_k.want"
k=0
for sh in 0/2 3/2 1/0 a/b 1/2x -1/2 2 ''; do
  k=$((k + 1))
  expect 2 "shard_bad_$k" "$X" test --shard "$sh" "$st"
  err_has "shard_bad_$k" "--shard needs K/N, two whole numbers with 1 <= K <= N <= 1000000, such as 2/4"
done
expect 1 shard_empty "$X" test --shard 5/5 "$st"
err_has shard_empty "nothing was checked"
# --fail-fast: the run stops at the first case that fails it
expect 1 fail_fast "$X" test -j 1 --fail-fast "$st"
out_has fail_fast "ERROR st_error: "
out_lacks fail_fast "st_fail"
out_has fail_fast "1 error, 3 not run; 0 passed, 1 failed"
err_has fail_fast "onnxop test: --fail-fast: stopped at the first failure; 3 of 4 cases not run"
printf 'st_error: bad model\n' >"$R/ff.xfail"
expect 1 fail_fast_xfail "$X" test -j 1 --fail-fast --xfail "$R/ff.xfail" "$st"
out_has fail_fast_xfail "FAIL st_fail: "
out_has fail_fast_xfail "1 fail, 1 xfail, 2 not run; 0 passed, 1 failed"
expect 0 fail_fast_json "$X" test --fail-fast --json "$st/st_pass"
out_has fail_fast_json '"not_run":0'

# ---- the --xfail list: globs, paths, duplicates, stale lines and shards ----
printf '%s\n' 'st_f*: a glob' 'st_e?ror: a glob' '*/st/st_unsupported: a path' 'st_fail: also named by line 1' \
  'test_gone: no such case' 'st_e?ror: a glob again' 'test_gone: again' >"$R/glob.xfail"
expect 1 xfail_glob "$X" test --xfail "$R/glob.xfail" "$st"
out_has xfail_glob "DUPLICATE test_gone: line 7 repeats line 5 of $R/glob.xfail; remove it"
out_has xfail_glob "DUPLICATE st_e?ror: line 6 repeats line 2 of $R/glob.xfail; remove it"
out_has xfail_glob "STALE test_gone: listed in $R/glob.xfail (line 5 names no case that was found)"
out_lacks xfail_glob "STALE st_"
out_has xfail_glob "3 xfail, 1 stale, 2 duplicate; 1 passed, 3 failed"
expect 1 xfail_glob_v "$X" test -v --xfail "$R/glob.xfail" "$st"
out_has xfail_glob_v "XFAIL st_unsupported: "
out_has xfail_glob_v "XFAIL st_fail: "
# a listed case outside the shard is not stale; what names no case (stale,
# duplicate) is reported by shard 1 alone
expect 1 xfail_shard1 "$X" test --shard 1/2 --xfail "$R/glob.xfail" "$st"
out_has xfail_shard1 "1 xfail, 1 stale, 2 duplicate; 1 passed, 3 failed"
expect 0 xfail_shard2 "$X" test --shard 2/2 --xfail "$R/glob.xfail" "$st"
out_has xfail_shard2 "2 xfail; 0 passed, 0 failed"
out_lacks xfail_shard2 "STALE"
# -k: a line whose name -k leaves out is not stale
expect 1 xfail_k "$X" test -k pass --xfail "$R/glob.xfail" "$st"
out_lacks xfail_k "STALE"
out_has xfail_k "2 duplicate; 1 passed, 2 failed"
# a line of any length is one line (a 5,000-byte one was cut in two, and its
# tail reported as a stale line 2 the file lacks); a NUL byte is named
{ printf 'st_fail: '; head -c 5000 /dev/zero | tr '\0' r; printf '\n'; } >"$R/long.xfail"
expect 0 xfail_long_line "$X" test --xfail "$R/long.xfail" "$st/st_fail"
out_has xfail_long_line "1 xfail; 0 passed, 0 failed"
out_lacks xfail_long_line "STALE"
printf 'st_fail: wrong\nst_error\000: bad\n' >"$R/nul.xfail"
expect 2 xfail_nul "$X" test --xfail "$R/nul.xfail" "$st"
err_has xfail_nul "onnxop test: $R/nul.xfail:2: a NUL byte at column 9"

# ---- reports: --junit FILE (checked against the schema), --tap (parsed) ----
printf '%s\n' 'st_crash: crashes' 'test_gone: stale' 'st_crash: twice' >"$R/rep.xfail"
if "$X" --version | grep -q "test build"; then # the hooks: see above
  expect 1 junit $hooks "$X" test -j 1 --timeout 2 --junit "$R/r.xml" --xfail "$R/rep.xfail" "$st" "$R/crash" "$R/hang"
  out_has junit "1 fail, 1 error, 1 unsupported, 1 timeout, 1 xfail, 1 stale, 1 duplicate; 1 passed, 6 failed"
  expect 0 junit_check python3 tests/cli/junit_check.py "$R/r.xml"
  cat >"$R/junit.want" <<EOT
$st st_error: error error
$st st_fail: failure fail
$st st_pass: pass
$st st_unsupported: error unsupported
$R/crash st_crash: skipped xfail
$R/hang st_timeout: error timeout
$R/rep.xfail test_gone: failure stale
$R/rep.xfail st_crash: failure duplicate
junit: 1 error error, 1 error timeout, 1 error unsupported, 1 failure duplicate, 1 failure fail, 1 failure stale, 1 pass, 1 skipped xfail
EOT
  same_text junit_check "$R/junit.want"
  if grep -qF 'message="test_data_set_0 output 0 &apos;output_tensor&apos;: element [0, 0]: expected -1, got 6' "$R/r.xml"; then ok; else bad "junit: no failure message"; fi
  if grep -qF '<property name="onnxop.xfail" value="'"$R/rep.xfail"'"/>' "$R/r.xml"; then ok; else bad "junit: no onnxop.xfail property"; fi
  # the checker fails a report that breaks the schema
  sed 's#<system-err/>##' "$R/r.xml" >"$R/broken1.xml"
  expect 1 junit_broken1 python3 tests/cli/junit_check.py "$R/broken1.xml"
  out_has junit_broken1 "are not properties, testcase*, system-out, system-err"
  sed 's#tests="4"#tests="5"#' "$R/r.xml" >"$R/broken2.xml"
  expect 1 junit_broken2 python3 tests/cli/junit_check.py "$R/broken2.xml"
  out_has junit_broken2 "testsuite 0: tests=5 but it holds 4"
  sed 's#<failure type="fail"#<failure#' "$R/r.xml" >"$R/broken3.xml"
  expect 1 junit_broken3 python3 tests/cli/junit_check.py "$R/broken3.xml"
  out_has junit_broken3 "<failure> lacks the attribute type"
fi
# a path that cannot take the report fails before any case runs, and leaves nothing
expect 1 junit_nodir "$X" test --junit "$R/nodir/r.xml" "$st/st_pass"
err_has junit_nodir "onnxop test: --junit $R/nodir/r.xml: cannot write: No such file or directory"
out_lacks junit_nodir "passed"
expect 1 junit_folder "$X" test --junit "$R" "$st/st_pass"
err_has junit_folder "onnxop test: --junit $R: is a folder"
expect 2 junit_stdout "$X" test --junit - "$st/st_pass"
err_has junit_stdout "--junit needs a FILE (standard output takes --json or --tap)"
expect 0 junit_again "$X" test --junit "$R/r.xml" "$st/st_pass"
expect 0 junit_again_check python3 tests/cli/junit_check.py "$R/r.xml"
out_has junit_again_check "junit: 1 pass"
if ls "$R"/r.xml.* >/dev/null 2>&1; then bad "junit: a temporary is left: $(ls "$R"/r.xml.*)"; else ok; fi
# names XML and TAP must escape: & < > " ' # \, and bytes that are not UTF-8
odd="$R/odd"
mkdir -p "$odd"
oddname='t&<>"'"'"'#\ é'
cp -r "$T/cases/test_cc_sequence_at_neg" "$odd/$oddname"
cp -r "$T/cases/test_cc_sequence_at_neg" "$odd/$(printf 't\377x')"
expect 0 junit_odd "$X" test --junit "$R/odd.xml" "$odd"
expect 0 junit_odd_check python3 tests/cli/junit_check.py "$R/odd.xml"
out_has junit_odd_check "$odd $oddname: pass"
out_has junit_odd_check "$odd t?x: pass"
expect 0 tap_odd "$X" test -j 1 --tap "$odd" # -j 1: points in the order of the cases
expect 0 tap_odd_check python3 tests/cli/tap_check.py "$T/tap_odd.out"
out_has tap_odd_check "1 $odd/$oddname: ok"
out_has tap_odd_check "2 $odd/t?x: ok"

if "$X" --version | grep -q "test build"; then # the hooks: see above
  expect 1 tap $hooks "$X" test -j 1 --timeout 2 --tap --xfail "$R/rep.xfail" "$st" "$R/crash" "$R/hang"
  expect 0 tap_check python3 tests/cli/tap_check.py "$T/tap.out"
  cat >"$R/tap.want" <<EOT
1 test_gone: stale
2 st_crash: duplicate
3 $st/st_error: error
4 $st/st_fail: fail
5 $st/st_pass: ok
6 $st/st_unsupported: unsupported
7 $R/crash/st_crash: xfail (todo)
8 $R/hang/st_timeout: timeout
tap: 8 points, 6 failing
EOT
  same_text tap_check "$R/tap.want"
  out_has tap "not ok 7 - $R/crash/st_crash # TODO crashes"
  out_has tap "# 1 fail, 1 error, 1 unsupported, 1 timeout, 1 xfail, 1 stale, 1 duplicate; 1 passed, 6 failed"
fi
# --fail-fast ends the stream with "Bail out!"
expect 1 tap_bail "$X" test -j 1 --tap --fail-fast "$st"
out_has tap_bail "Bail out! --fail-fast: $st/st_error failed"
expect 0 tap_bail_check python3 tests/cli/tap_check.py "$T/tap_bail.out"
out_has tap_bail_check "tap: 1 points, 1 failing, bailed out"
if "$X" --version | grep -q "test build"; then # the hooks: see above
  # the parser fails a stream that breaks TAP 14
  sed 's/^ok 5 /ok 9 /' "$T/tap.out" >"$R/broken.tap"
  expect 1 tap_broken python3 tests/cli/tap_check.py "$R/broken.tap"
  out_has tap_broken "tap: line 27: test point 9, expected 5"
  sed 's/^1\.\.8$/1..9/' "$T/tap.out" >"$R/broken2.tap"
  expect 1 tap_broken2 python3 tests/cli/tap_check.py "$R/broken2.tap"
  out_has tap_broken2 "tap: the plan says 9 points, the stream has 8"
  sed 's/^  \.\.\.$//' "$T/tap.out" >"$R/broken3.tap"
  expect 1 tap_broken3 python3 tests/cli/tap_check.py "$R/broken3.tap"
fi
expect 2 tap_json "$X" test --tap --json "$st"
err_has tap_json "use one of --json, --tap and --failures, not both --tap and --json"

# ---- tolerances: --atol/--rtol, data.json, --force-tolerance, --tolerances FILE ----
tc="$R/tol/tol_case"
"$X" make Add --opset 14 --input 'A:float32[3]' --input 'B:float32[3]' --output C --case "$tc" \
  --in 'float32[3]:1,2,3' --in 'float32[3]:10,20,30' >/dev/null
"$X" convert 'float32[3]:11,22,33.1' "$tc/test_data_set_0/output_0.pb" # 0.1 off
expect 1 tol_default "$X" test "$tc"
out_has tol_default "FAIL tol_case: test_data_set_0 output 0 'C': element [2]: expected 33.0999985, got 33 (rtol 0.001, atol 1e-07)"
expect 0 tol_atol "$X" test --atol 0.2 "$tc"
expect 0 tol_rtol "$X" test --rtol 0.01 "$tc"
expect 1 tol_small "$X" test --atol 0.05 "$tc"
out_has tol_small "(rtol 0.001, atol 0.05)"
# data.json wins over --atol/--rtol, unless --force-tolerance
echo '{"rtol": 0.0001, "atol": 0}' >"$tc/data.json"
expect 1 tol_data "$X" test --rtol 0.01 "$tc"
out_has tol_data "(rtol 0.0001, atol 0)"
expect 0 tol_force "$X" test --rtol 0.01 --force-tolerance "$tc"
expect 2 tol_force_alone "$X" test --force-tolerance "$tc"
err_has tol_force_alone "onnxop test: --force-tolerance needs --atol or --rtol"
# a tolerance that is not a number is an error, never a silent 0
for v in '"abc"' '-1' 'null' '[1]' '1e999'; do
  echo "{\"rtol\": $v}" >"$tc/data.json"
  expect 1 "tol_data_bad_$v" "$X" test "$tc"
  out_has "tol_data_bad_$v" "ERROR tol_case: data.json: \"rtol\" is "
done
out_has 'tol_data_bad_"abc"' 'ERROR tol_case: data.json: "rtol" is "abc", not a number >= 0'
echo '{"rtol": 0.1' >"$tc/data.json"
expect 1 tol_data_invalid "$X" test "$tc"
out_has tol_data_invalid "ERROR tol_case: data.json: invalid JSON"
rm "$tc/data.json"
for v in abc -1 inf nan 0x10 ''; do
  expect 2 "tol_opt_bad_$v" "$X" test --atol "$v" "$tc"
  err_has "tol_opt_bad_$v" "onnxop test: --atol needs a number >= 0, not '$v'"
done
# the file: GLOB[:OUTPUT] atol= rtol=, later lines over earlier ones, over data.json
tf="$R/tol.txt"
printf '# tolerances\ntol_* atol=0.5\n' >"$tf"
expect 0 tol_file "$X" test --tolerances "$tf" "$tc"
printf 'tol_* atol=0.5\ntol_case rtol=0 atol=0  # tighter\n' >"$tf"
expect 1 tol_file_order "$X" test --tolerances "$tf" "$tc"
out_has tol_file_order "(rtol 0, atol 0)"
printf 'tol_case:C atol=0.5\n' >"$tf"
expect 0 tol_file_output "$X" test --tolerances "$tf" "$tc"
printf 'tol_case:D atol=0.5\n*/tol/tol_case:D rtol=1\n' >"$tf"
expect 1 tol_file_other_output "$X" test --tolerances "$tf" "$tc"
printf '*/tol/tol_case atol=0.5\n' >"$tf"
expect 0 tol_file_path "$X" test --tolerances "$tf" "$tc"
echo '{"atol": 0, "rtol": 0}' >"$tc/data.json"
printf 'tol_case atol=0.5\n' >"$tf"
expect 0 tol_file_over_data "$X" test --tolerances "$tf" "$tc"
expect 1 tol_file_forced "$X" test --tolerances "$tf" --atol 0 --force-tolerance "$tc"
rm "$tc/data.json"
k=0
for line in 'tol_case atol=x' 'tol_case' 'tol_case foo=1' 'tol_case atol=1e-3 rtol=inf' ':C atol=1' 'tol_case: atol=1'; do
  k=$((k + 1))
  printf '\n%s\n' "$line" >"$tf"
  expect 2 "tol_file_bad_$k" "$X" test --tolerances "$tf" "$tc"
  err_has "tol_file_bad_$k" "onnxop test: $tf:2: "
done
err_has tol_file_bad_1 "$tf:2: atol: 'x' is not a number >= 0"
err_has tol_file_bad_2 "$tf:2: the line gives neither atol= nor rtol="
err_has tol_file_bad_3 "$tf:2: 'foo=1' is not atol=NUMBER or rtol=NUMBER"
# blanks before the GLOB separate words as after it (they were kept in the
# glob, and the line silently named no case); a line of any length is one
# line; a NUL byte is named as one, with its line
printf '  tol_case atol=0.5\n' >"$tf"
expect 0 tol_file_lead_blank "$X" test --tolerances "$tf" "$tc"
printf '\t tol_case:C atol=0.5\r\n' >"$tf"
expect 0 tol_file_lead_tab "$X" test --tolerances "$tf" "$tc"
{ printf 'tol_case atol=0.5 # '; head -c 5000 /dev/zero | tr '\0' x; printf '\n'; } >"$tf"
expect 0 tol_file_long_line "$X" test --tolerances "$tf" "$tc"
printf 'tol_case atol=0.5\ntol_case\000 atol=0.5\n' >"$tf"
expect 2 tol_file_nul "$X" test --tolerances "$tf" "$tc"
err_has tol_file_nul "onnxop test: $tf:2: a NUL byte at column 9"
printf 'tol_case atol=0.5' >"$tf" # no newline at the end
expect 0 tol_file_no_newline "$X" test --tolerances "$tf" "$tc"
expect 2 tol_file_missing "$X" test --tolerances "$R/no-such-file" "$tc"
err_has tol_file_missing "cannot read the tolerance file '$R/no-such-file': No such file or directory"

# ---- onnxop report: shard reports merged into one summary and one status ----
expect 1 rep_whole "$X" test --xfail "$R/rep.xfail" "$st"
for k in 1 2 3; do
  code=1
  [ $k = 3 ] && code=0 # st_pass alone; the list's lines are shard 1's
  expect $code "rep_shard$k" "$X" test --shard $k/3 --xfail "$R/rep.xfail" --junit "$R/s$k.xml" "$st"
  expect $code "rep_shard${k}_json" "$X" test --shard $k/3 --xfail "$R/rep.xfail" --json "$st"
  cp "$T/rep_shard${k}_json.out" "$R/s$k.json"
done
tail -n 1 "$T/rep_whole.out" >"$R/rep_whole.want"
expect 1 rep_junit "$X" report "$R/s1.xml" "$R/s2.xml" "$R/s3.xml"
if [ "$(tail -n 1 "$T/rep_junit.out")" = "$(cat "$R/rep_whole.want")" ]; then ok; else bad "rep_junit: '$(tail -n 1 "$T/rep_junit.out")', one run says '$(cat "$R/rep_whole.want")'"; fi
out_has rep_junit "FAIL st_fail: test_data_set_0 output 0 'output_tensor': element [0, 0]: expected -1, got 6"
out_has rep_junit "STALE test_gone: line 2 names no case that was found"
out_has rep_junit "DUPLICATE st_crash: line 3 repeats line 1"
expect 1 rep_json "$X" report "$R/s1.json" "$R/s2.json" "$R/s3.json"
out_has rep_json "$(cat "$R/rep_whole.want")"
out_has rep_json "STALE test_gone: "
out_has rep_json "DUPLICATE st_crash: "
expect 1 rep_mixed "$X" report "$R/s1.xml" "$R/s2.json" "$R/s3.xml"
out_has rep_mixed "$(cat "$R/rep_whole.want")"
# the merged report as JSON and as JUnit (valid)
expect 1 rep_to_json "$X" report --json --junit "$R/merged.xml" "$R/s1.xml" "$R/s2.xml" "$R/s3.json"
jsonok rep_to_json
out_has rep_to_json '"statuses":{"pass":1,"fail":1,"error":1,"unsupported":1,"crash":0,"timeout":0,"xfail":0,"xpass":0,"stale":2,"duplicate":1}'
expect 0 rep_merged_check python3 tests/cli/junit_check.py "$R/merged.xml"
out_has rep_merged_check "junit: 1 error error, 1 error unsupported, 1 failure duplicate, 1 failure fail, 2 failure stale, 1 pass"
# a shard missing or twice, a case in two reports, shards that do not add up: exit 1
expect 1 rep_missing "$X" report "$R/s1.xml" "$R/s3.xml"
err_has rep_missing "onnxop report: no report of shard 2/3 (of the run that selected 4 cases)"
err_has rep_missing "onnxop report: the reports are not one whole run, each case once (see above)"
expect 1 rep_twice "$X" report "$R/s1.xml" "$R/s2.xml" "$R/s3.xml" "$R/s2.json"
err_has rep_twice "onnxop report: $st/st_fail is in $R/s2.xml and in $R/s2.json (a shard run twice, or shards that overlap)"
err_has rep_twice "onnxop report: shard 2/3 is in $R/s2.xml and in $R/s2.json"
out_has rep_twice "$(cat "$R/rep_whole.want")"
"$X" test --shard 2/3 -k pass --json "$st" >"$R/s2k.json" 2>/dev/null
expect 1 rep_not_whole "$X" report "$R/s1.json" "$R/s2k.json" "$R/s3.json"
err_has rep_not_whole "no report of shard 2/3 (of the run that selected 4 cases)"
sed 's/"run":[0-9]*/"run":0/' "$R/s2.json" >"$R/s2r.json"
expect 1 rep_not_sum "$X" report "$R/s1.json" "$R/s2r.json" "$R/s3.json"
err_has rep_not_sum "onnxop report: the 3 shards hold 3 cases, but 4 were selected"
# all passing: exit 0; unsharded reports of two suites merge as they are
expect 0 rep_pass_run "$X" test --json "$st/st_pass"
cp "$T/rep_pass_run.out" "$R/pass.json"
expect 0 rep_pass_run2 "$X" test --junit "$R/pass2.xml" "$R/a"
expect 0 rep_pass "$X" report "$R/pass.json" "$R/pass2.xml"
out_has rep_pass "2 passed, 0 failed"
expect 0 rep_pass_v "$X" report -v "$R/pass.json" "$R/pass2.xml"
out_has rep_pass_v "PASS st_pass"
expect 0 rep_pass_q "$X" report -q "$R/pass.json"
if [ "$(cat "$T/rep_pass_q.out")" = "1 passed, 0 failed" ]; then ok; else bad "rep_pass_q: $(cat "$T/rep_pass_q.out")"; fi
# JUnit of other tools: failure, error and skipped without onnxop's types
cat >"$R/other.xml" <<'EOT'
<?xml version="1.0"?>
<!-- pytest -->
<testsuites><testsuite name="pytest" tests="4"><testcase classname="t.mod" name="a" time="0.1"/>
<testcase classname="t.mod" name="b" time="x"><failure message="assert 1 == 2">trace &amp; more</failure></testcase>
<testcase classname="t.mod" name="c"><error message="boom &#x263A; &lt;&#65;&gt;"><![CDATA[ <not a tag> ]]></error></testcase>
<testcase classname="t.mod" name="d"><skipped message="later"/></testcase></testsuite></testsuites>
EOT
expect 1 rep_other "$X" report "$R/other.xml"
out_has rep_other "FAIL b: assert 1 == 2"
out_has rep_other "ERROR c: boom ☺ <A>"
out_has rep_other "1 fail, 1 error, 1 xfail; 1 passed, 2 failed"
# what is not a report, or a broken one, is refused with the line and why
printf 'hello\n' >"$R/junk.txt"
expect 1 rep_junk "$X" report "$R/junk.txt"
err_has rep_junk "onnxop report: $R/junk.txt: neither JUnit XML nor an onnxop --json report"
k=0
for x in '<testsuites><testsuite name="a">' '<testsuites></testsuite>' '<testsuites><testcase name="a" classname="b"/></testsuites>' \
  '<!DOCTYPE t [<!ENTITY a "aaaa">]><testsuites/>' '<testsuites><testsuite name="a"><testcase name="x" classname="y"><failure message="&bogus;"/></testcase></testsuite></testsuites>' \
  '<testsuites a="1" a="2"/>' '<a/>' '<testsuites/><testsuites/>' '<testsuites><testsuite name="s"><properties><property name="onnxop.shard" value="3/2"/></properties></testsuite></testsuites>'; do
  k=$((k + 1))
  printf '%s\n' "$x" >"$R/bad$k.xml"
  expect 1 "rep_bad_xml_$k" "$X" report "$R/bad$k.xml"
  err_has "rep_bad_xml_$k" "onnxop report: $R/bad$k.xml: not a JUnit XML report: line "
done
err_has rep_bad_xml_1 "line 2: the file ends inside an element"
err_has rep_bad_xml_2 "an end tag that closes no open element"
err_has rep_bad_xml_3 "a <testcase> outside a <testsuite>"
err_has rep_bad_xml_4 "a DOCTYPE with an internal subset (entity definitions are refused)"
err_has rep_bad_xml_5 "an unknown entity or a bad character reference"
err_has rep_bad_xml_6 "an attribute given twice"
err_has rep_bad_xml_7 "the root is neither <testsuites> nor <testsuite>"
err_has rep_bad_xml_8 "a second root element"
err_has rep_bad_xml_9 "the property onnxop.shard is not K/N"
python3 -c 'print("<testsuites>" + "<a>" * 100 + "</a>" * 100 + "</testsuites>")' >"$R/deep.xml"
expect 1 rep_deep "$X" report "$R/deep.xml"
err_has rep_deep "line 1: elements nested more than 64 deep"
k=0
for j in '{}' '[]' '{"cases":[{"name":"a","path":"a","status":"bogus","message":null,"seconds":0}]}' \
  '{"cases":[{"name":"a","status":"pass","message":null,"seconds":0}]}' '{"cases":[],"stale":[],"duplicates":[],"shard":"2/1","selected":0,"not_run":0}' \
  '{"cases":[],"stale":[1],"duplicates":[],"selected":0,"not_run":0}' '{"cases":[],"stale":[],"duplicates":[],"selected":-1,"not_run":0}' '{"cases":[}'; do
  k=$((k + 1))
  printf '%s\n' "$j" >"$R/bad$k.json"
  expect 1 "rep_bad_json_$k" "$X" report "$R/bad$k.json"
  err_has "rep_bad_json_$k" "onnxop report: $R/bad$k.json: not an onnxop --json report: "
done
err_has rep_bad_json_1 'no "cases" array'
err_has rep_bad_json_2 'not a JSON object'
err_has rep_bad_json_3 'cases[0]: "status" is not a case'
err_has rep_bad_json_4 'cases[0]: no "name" or "path" string'
err_has rep_bad_json_5 '"shard" is not "K/N" or null'
err_has rep_bad_json_6 '"stale": holds something that is not a string'
err_has rep_bad_json_7 '"selected": not a count'
err_has rep_bad_json_8 'invalid JSON'
expect 1 rep_none "$X" report "$R/no-such.xml"
err_has rep_none "onnxop report: $R/no-such.xml: "
expect 2 rep_noargs "$X" report
err_has rep_noargs "onnxop report: no REPORT given"
expect 1 rep_empty "$X" report "$R/bad5.json"
expect 0 rep_help "$X" report --help
out_has rep_help "usage: onnxop report"

# ---- 4 shards of the node-test suite: each case once, the counts of one run ----
if [ -n "$SUITE" ] && [ -d "$SUITE" ]; then
  XF=tests/xfail/onnx-node-tests.txt
  "$X" test --list "$SUITE" | sort >"$R/suite.list"
  : >"$R/shards.list"
  for k in 1 2 3 4; do "$X" test --list --shard $k/4 "$SUITE" >>"$R/shards.list"; done
  if [ "$(sort "$R/shards.list" | uniq -d | wc -l)" = 0 ]; then ok; else bad "shards: a case is in two shards: $(sort "$R/shards.list" | uniq -d | head -3)"; fi
  if sort "$R/shards.list" | cmp -s - "$R/suite.list" && [ "$(wc -l <"$R/suite.list")" -ge 1802 ]; then ok; else
    bad "shards: the 4 shards are not the $(wc -l <"$R/suite.list") cases of the suite"; fi
  expect 0 suite_whole "$X" test --xfail "$XF" --json "$SUITE"
  for k in 1 2 3 4; do
    expect 0 "suite_shard$k" "$X" test -q --shard $k/4 --xfail "$XF" --junit "$R/suite$k.xml" "$SUITE"
  done
  expect 0 suite_report "$X" report --json "$R/suite1.xml" "$R/suite2.xml" "$R/suite3.xml" "$R/suite4.xml"
  # the same cases with the same statuses, and the same counts, as the one run
  if python3 - "$T/suite_whole.out" "$T/suite_report.out" <<'EOT'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
ca = sorted((c["path"], c["status"]) for c in a["cases"])
cb = sorted((c["path"], c["status"]) for c in b["cases"])
assert len(ca) >= 1802 and ca == cb, (len(ca), len(cb))
for k in ("statuses", "passed", "failed", "xfailed", "xpassed", "stale", "duplicates", "selected"):
    assert a[k] == b[k], (k, a[k], b[k])
EOT
  then ok; else bad "suite_report: the merged shards differ from one run"; fi
else
  echo "runner: no SUITE given: the 4-shard test of the node-test suite is skipped"
fi

# ---- compare: per-output tolerances, --check-error-stat, --validate ----
c2="$R/cmp"
mkdir -p "$c2/got" "$c2/want"
echo '{"name":"y","dtype":"float32","shape":[2],"data":[1,2]}' >"$R/y.json"
"$X" convert "$R/y.json" "$c2/want/output_0.pb"
"$X" convert 'float32[2]:1,2.5' "$c2/got/output_0.pb"
"$X" convert 'float32[3]:1,2,3' "$c2/want/output_1.pb"
"$X" convert 'float32[3]:1,2,3.2' "$c2/got/output_1.pb"
expect 1 cmp_plain "$X" compare "$c2/got" "$c2/want"
out_has cmp_plain "output_0: 1 of 2 elements differ (rtol 0.001, atol 1e-07)"
out_has cmp_plain "output_1: 1 of 3 elements differ (rtol 0.001, atol 1e-07)"
expect 1 cmp_one "$X" compare "$c2/got" "$c2/want" --atol output_1=0.5
out_has cmp_one "output_0: 1 of 2 elements differ (rtol 0.001, atol 1e-07)"
out_has cmp_one "output_1: match (3 elements; worst absolute error 0.2"
expect 0 cmp_both "$X" compare "$c2/got" "$c2/want" --atol output_1=0.5 --rtol y=0.3
out_has cmp_both "output_0: match"
expect 0 cmp_one_json "$X" compare --json "$c2/got" "$c2/want" --atol 0.5 --atol output_0=0.6
out_has cmp_one_json '"name":"output_0","match":true'
out_has cmp_one_json '"rtol":0.001,"atol":0.6}'
out_has cmp_one_json '"rtol":0.001,"atol":0.5}'
expect 2 cmp_tol_unknown "$X" compare "$c2/got" "$c2/want" --atol out0=1e-3
err_has cmp_tol_unknown "onnxop compare: --atol out0=0.001: no output compared is named 'out0'"
for v in '=1' 'x=' 'x=abc' 'x=-1' 'inf'; do
  expect 2 "cmp_tol_bad_$v" "$X" compare "$c2/got" "$c2/want" --rtol "$v"
  err_has "cmp_tol_bad_$v" "onnxop compare: --rtol needs a number >= 0 (or NAME=number), not '$v'"
done
# error statistics: one element 10 off, four exact
e5='float32[5]:0,0,0,0,10'
z5='float32[5]:0,0,0,0,0'
expect 1 stat_elem "$X" compare "$e5" "$z5" --atol 1
expect 1 stat_max "$X" compare "$e5" "$z5" --atol 1 --check-error-stat max
out_has stat_max "the max error is out of tolerance: absolute 10 > atol 1 and relative inf > rtol 0.001"
expect 1 stat_mean "$X" compare "$e5" "$z5" --atol 1 --check-error-stat mean
out_has stat_mean "the mean error is out of tolerance: absolute 2 > atol 1"
expect 0 stat_mean_ok "$X" compare "$e5" "$z5" --atol 2 --check-error-stat mean
out_has stat_mean_ok "match (5 elements; mean error: absolute 2, relative inf"
expect 0 stat_median "$X" compare "$e5" "$z5" --atol 1 --check-error-stat median
out_has stat_median "match (5 elements; median error: absolute 0, relative 0"
expect 1 stat_q8 "$X" compare "$e5" "$z5" --atol 1 --check-error-stat quantile=0.8
out_has stat_q8 "the 0.8-quantile error is out of tolerance: absolute 2 > atol 1"
expect 0 stat_q7 "$X" compare "$e5" "$z5" --atol 1 --check-error-stat quantile=0.7
# relative alone is enough (Polygraphy: out of tolerance only when both are)
expect 0 stat_rel "$X" compare 'float32[2]:100,210' 'float32[2]:100,200' --check-error-stat max --rtol 0.05
expect 1 stat_rel_no "$X" compare 'float32[2]:100,210' 'float32[2]:100,200' --check-error-stat max --rtol 0.04
expect 1 stat_json "$X" compare --json "$e5" "$z5" --atol 1 --check-error-stat mean
out_has stat_json '"error_stat":{"stat":"mean","abs":2,"rel":"inf"}'
# a NaN against a number is an infinite error; integers stay exact
expect 1 stat_nan "$X" compare 'float32[4]:nan,0,0,0' 'float32[4]:1,0,0,0' --atol 1 --check-error-stat mean
expect 0 stat_nan_median "$X" compare 'float32[4]:nan,0,0,0' 'float32[4]:1,0,0,0' --atol 1 --check-error-stat median
expect 1 stat_int "$X" compare 'int32[3]:1,2,3' 'int32[3]:1,2,4' --atol 5 --check-error-stat median
out_has stat_int "1 of 3 elements differ (integers, bools and strings compare exactly)"
for v in 'quantile=2' 'quantile=' 'foo' 'quantile=-0.1' ''; do
  expect 2 "stat_bad_$v" "$X" compare "$e5" "$z5" --check-error-stat "$v"
  err_has "stat_bad_$v" "onnxop compare: --check-error-stat needs max, mean, median, quantile=Q (0 <= Q <= 1) or elemwise"
done
# --validate: NaN or infinity in GOT fails, even where EXPECTED holds the same
expect 0 valid_no "$X" compare 'float32[3]:1,nan,inf' 'float32[3]:1,nan,inf'
expect 1 valid "$X" compare --validate 'float32[3]:1,nan,inf' 'float32[3]:1,nan,inf'
out_has valid "differs: GOT holds 1 NaN and 1 infinite value, the first at [1] (--validate)"
expect 0 valid_ok "$X" compare --validate 'float32[3]:1,2,3' 'float32[3]:1,2,3'
cplx='{"dtype":"complex64","shape":[2],"data":[[1,2],[3,"inf"]]}'
expect 1 valid_json "$X" compare --json --validate "$cplx" "$cplx"
out_has valid_json '"nan":0,"inf":1,"first_nonfinite":"[1]"'
expect 1 valid_both "$X" compare --validate 'float32[2]:inf,5' 'float32[2]:inf,1'
out_has valid_both "1 of 2 elements differ"
out_has valid_both "  GOT holds 0 NaN and 1 infinite value, the first at [0] (--validate)"

# ---- GNU parallel over shards, as the README and the man page show ----
if command -v parallel >/dev/null 2>&1; then
  rm -f "$R"/par*.xml
  parallel -j 3 "$X" test -q --shard {}/3 --xfail "$R/rep.xfail" --junit "$R/par{}.xml" "$st" ::: 1 2 3 >"$R/par.out" 2>&1
  expect 1 par_report "$X" report "$R/par1.xml" "$R/par2.xml" "$R/par3.xml"
  if [ "$(tail -n 1 "$T/par_report.out")" = "$(cat "$R/rep_whole.want")" ]; then ok; else
    bad "par_report: '$(tail -n 1 "$T/par_report.out")', one run says '$(cat "$R/rep_whole.want")'"; fi
  if [ -n "$SUITE" ] && [ -d "$SUITE" ]; then
    rm -f "$R"/psuite*.xml
    # the README's command, on this machine through --sshlogin : (ssh to
    # other hosts cannot run here), with absolute paths as a host needs
    abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
    parallel --sshlogin : "$(abs "$X")" test -q --shard {}/4 --xfail "$PWD/tests/xfail/onnx-node-tests.txt" \
      --junit "$(abs "$R")/psuite{}.xml" "$(abs "$SUITE")" ::: 1 2 3 4 >"$R/psuite.out" 2>&1
    expect 0 par_suite "$X" report --json "$R"/psuite*.xml
    if python3 - "$T/suite_whole.out" "$T/par_suite.out" <<'EOT'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
# by name: one suite, given as a relative path to one and an absolute one to the other
assert sorted((c["name"], c["status"]) for c in a["cases"]) == sorted((c["name"], c["status"]) for c in b["cases"])
assert a["statuses"] == b["statuses"] and a["failed"] == b["failed"] and a["selected"] == b["selected"]
EOT
    then ok; else bad "par_suite: GNU parallel's 4 shards differ from one run"; fi
  fi
else
  echo "runner: GNU parallel is not installed (apt-get install parallel, in the Makefile's TEST_DEBS): its test is skipped"
fi
