# tests/cli/report.sh: onnxop report on hostile reports (shard counts near
# INT_MAX, counts that overflow, times that are no time, control characters,
# a byte-order mark, memory limits) and test -k on patterns that backtrack
# for ever; sourced by tests/cli/run.sh after runner.sh (uses X, T, R, st
# and the helpers). Each run that once hung has `timeout` around it.
H="$T/hostile"
rm -rf "$H" && mkdir -p "$H"

# bounded EXPECTED NAME CMD...: as expect, but a run past 20 s fails (exit 124)
bounded() {
  code=$1 name=$2
  shift 2
  expect "$code" "$name" timeout 20 "$@"
}
# err_small NAME BYTES: stderr of NAME holds at most BYTES bytes
err_small() {
  if [ "$(wc -c <"$T/$1.err")" -le "$2" ]; then ok; else bad "$1: stderr holds $(wc -c <"$T/$1.err") bytes, more than $2"; fi
}
# no_ctrl NAME: neither stdout nor stderr of NAME holds ESC, BEL or CR
no_ctrl() {
  for s in out err; do
    if LC_ALL=C tr -d '\033\007\r' <"$T/$1.$s" | cmp -s - "$T/$1.$s"; then ok; else
      bad "$1: std$s holds a control character: $(cat -v "$T/$1.$s" | head -c 300)"; fi
  done
}
# a JSON report of one passing case a, with the shard and counts given
json_report() { # FILE SHARD SELECTED RUN NOT_RUN
  printf '{"cases":[{"name":"a","path":"s/a","status":"pass","message":null,"seconds":0.1}],"stale":[],"duplicates":[],"shard":%s,"selected":%s,"run":%s,"not_run":%s,"xfail":null}\n' \
    "$2" "$3" "$4" "$5" >"$1"
}
# a JUnit report of one testsuite: PROPS (property elements), then CASES
junit_report() { # FILE PROPS CASES
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="s"><properties>%s</properties>\n%s\n</testsuite></testsuites>\n' \
    "$2" "$3" >"$1"
}
prop() { printf '<property name="onnxop.%s" value="%s"/>' "$1" "$2"; }

# ---- a shard count near INT_MAX: missing shards as ranges, N bounded as --shard bounds it ----
json_report "$H/k1of1m.json" '"1/1000000"' 1 1 0
bounded 1 rep_shard_1m "$X" report "$H/k1of1m.json"
err_has rep_shard_1m "onnxop report: no report of shards 2-1000000/1000000 (of the run that selected 1 cases)"
err_small rep_shard_1m 400
junit_report "$H/k1of1m.xml" "$(prop shard 1/1000000)$(prop selected 1)$(prop run 1)$(prop not_run 0)" \
  '<testcase name="a" classname="s" time="0.1"/>'
bounded 1 rep_shard_1m_xml "$X" report -q "$H/k1of1m.xml"
err_has rep_shard_1m_xml "no report of shards 2-1000000/1000000"
err_small rep_shard_1m_xml 400
# past the bound, or past an int (1/4294967297 once read as 1/1): refused, as --shard refuses it
k=0
for sh in 1/2147483647 1/4294967297 1/1000001 4294967297/4294967297 +1/2 ' 1/2' 1/2x; do
  k=$((k + 1))
  json_report "$H/sh$k.json" "\"$sh\"" 1 1 0
  bounded 1 "rep_shard_bad_$k" "$X" report "$H/sh$k.json"
  err_has "rep_shard_bad_$k" "$H/sh$k.json: not an onnxop --json report: \"shard\" is not \"K/N\" or null (1 <= K <= N <= 1000000)"
  junit_report "$H/sh$k.xml" "$(prop shard "$sh")$(prop selected 1)" '<testcase name="a" classname="s"/>'
  bounded 1 "rep_shard_bad_xml_$k" "$X" report "$H/sh$k.xml"
  err_has "rep_shard_bad_xml_$k" "$H/sh$k.xml: not a JUnit XML report: line 2: the property onnxop.shard is not K/N (1 <= K <= N <= 1000000)"
  expect 2 "test_shard_bad_$k" "$X" test --shard "$sh" "$st"
  err_has "test_shard_bad_$k" "--shard needs K/N, two whole numbers with 1 <= K <= N <= 1000000, such as 2/4"
done
# shards 1 and 3 of 6: one line for shard 2, one for the range 4-6
json_report "$H/r1.json" '"1/6"' 6 1 0
sed 's|"s/a"|"s/c"|; s|"1/6"|"3/6"|' "$H/r1.json" >"$H/r3.json"
bounded 1 rep_ranges "$X" report "$H/r3.json" "$H/r1.json"
err_has rep_ranges "onnxop report: no report of shard 2/6 (of the run that selected 6 cases)"
err_has rep_ranges "onnxop report: no report of shards 4-6/6 (of the run that selected 6 cases)"
if [ "$(grep -c 'no report of' "$T/rep_ranges.err")" = 2 ]; then ok; else bad "rep_ranges: $(cat "$T/rep_ranges.err")"; fi
# a shard given three times: each later copy named against the first
bounded 1 rep_thrice "$X" report "$H/r1.json" "$H/r1.json" "$H/r1.json"
err_has rep_thrice "onnxop report: shard 1/6 is in $H/r1.json and in $H/r1.json"
if [ "$(grep -c 'shard 1/6 is in' "$T/rep_thrice.err")" = 2 ]; then ok; else bad "rep_thrice: $(cat "$T/rep_thrice.err")"; fi

# ---- counts: whole numbers from 0 to 2^53, and so their sums ----
big=9223372036854775807
junit_report "$H/ovf1.xml" "$(prop selected $big)$(prop not_run $big)" '<testcase name="a" classname="s" time="0.1"/>'
sed 's/name="a"/name="b"/' "$H/ovf1.xml" >"$H/ovf2.xml"
bounded 1 rep_overflow "$X" report "$H/ovf1.xml" "$H/ovf2.xml"
err_has rep_overflow "onnxop report: $H/ovf1.xml: not a JUnit XML report: line 2: an onnxop.* property whose value is not a count (a whole number from 0 to 2^53)"
out_lacks rep_overflow "not run"
json_report "$H/ovf.json" null 1 1 1e300
bounded 1 rep_overflow_json "$X" report "$H/ovf.json"
err_has rep_overflow_json '"not_run": not a count (a whole number from 0 to 2^53)'
json_report "$H/frac.json" null 1.5 1 0
bounded 1 rep_fraction "$X" report "$H/frac.json"
err_has rep_fraction '"selected": not a count'
# 2^53 each: each is a count, their sum is not
junit_report "$H/max1.xml" "$(prop selected 1)$(prop not_run 9007199254740992)" '<testcase name="a" classname="s"/>'
sed 's/name="a"/name="b"/' "$H/max1.xml" >"$H/max2.xml"
bounded 1 rep_sum "$X" report "$H/max1.xml" "$H/max2.xml"
err_has rep_sum "onnxop report: the reports count more than 2^53 cases not run in all: they are not reports of real runs"
bounded 0 rep_sum_one "$X" report "$H/max1.xml"
out_has rep_sum_one "9007199254740992 not run; 1 passed, 0 failed"

# ---- times: a JUnit time that is no time of 0 to 1e9 s reads as 0; the merged XML stays valid ----
junit_report "$H/times.xml" "" \
  '<testcase name="a" classname="s" time="1e300"/><testcase name="b" classname="s" time="inf"/><testcase name="c" classname="s" time="nan"/><testcase name="d" classname="s" time="-2"/><testcase name="e" classname="s" time="1,5"/><testcase name="f" classname="s" time="2.5"/>'
bounded 0 rep_times "$X" report --json --junit "$H/times_merged.xml" "$H/times.xml"
jsonok rep_times
out_has rep_times '{"name":"a","path":"s/a","status":"pass","message":null,"seconds":0}'
out_has rep_times '{"name":"b","path":"s/b","status":"pass","message":null,"seconds":0}'
out_has rep_times '{"name":"f","path":"s/f","status":"pass","message":null,"seconds":2.5}'
out_lacks rep_times '-922337203685477'
expect 0 rep_times_check python3 tests/cli/junit_check.py "$H/times_merged.xml"
if grep -q 'name="a" classname="s" time="0.0000"' "$H/times_merged.xml"; then ok; else
  bad "rep_times: $(grep 'name="a"' "$H/times_merged.xml" | head -c 300)"; fi
# a --json report is onnxop's own: a time that is no time is refused
printf '{"cases":[{"name":"a","path":"a","status":"pass","message":null,"seconds":1e300}],"stale":[],"duplicates":[],"shard":null,"selected":1,"not_run":0}\n' >"$H/time.json"
bounded 1 rep_time_json "$X" report "$H/time.json"
err_has rep_time_json "$H/time.json: not an onnxop --json report: cases[0]: \"seconds\" is not a number of seconds from 0 to 1e9"

# ---- control characters reach no terminal: printed as '?' ----
junit_report "$H/ctrl.xml" "" \
  '<testcase name="a&#x1b;[2J" classname="s"><failure message="x&#x1b;[31mred&#x7;&#13;ok&#10;next&#x9b;1m"/></testcase>'
bounded 1 rep_ctrl "$X" report "$H/ctrl.xml"
out_has rep_ctrl "FAIL a?[2J: x?[31mred??ok"
out_has rep_ctrl "next?1m"
no_ctrl rep_ctrl
# the same from a --json report (JSON escapes them), and in a message about a case in two reports
printf '{"cases":[{"name":"b\\u001b]0;title\\u0007","path":"s/b\\u001b[5m","status":"error","message":"\\u001b[2J","seconds":0}],"stale":[],"duplicates":[],"shard":null,"selected":1,"not_run":0}\n' >"$H/ctrl.json"
bounded 1 rep_ctrl_json "$X" report "$H/ctrl.json" "$H/ctrl.json"
out_has rep_ctrl_json "ERROR b?]0;title?: ?[2J"
err_has rep_ctrl_json "onnxop report: s/b?[5m is in $H/ctrl.json and in $H/ctrl.json"
no_ctrl rep_ctrl_json
# --junit and --json of the merge hold them escaped, never raw
bounded 1 rep_ctrl_out "$X" report --json --junit "$H/ctrl_merged.xml" "$H/ctrl.xml"
jsonok rep_ctrl_out
out_has rep_ctrl_out '"message":"x\u001b[31mred\u0007\rok\nnext'
no_ctrl rep_ctrl_out
expect 0 rep_ctrl_check python3 tests/cli/junit_check.py "$H/ctrl_merged.xml"

# ---- a UTF-8 byte-order mark starts a JUnit (or JSON) report; a NUL byte ends none ----
printf '\357\273\277' >"$H/bom.xml"
cat "$R/pass2.xml" >>"$H/bom.xml"
bounded 0 rep_bom "$X" report "$H/bom.xml"
out_has rep_bom "1 passed, 0 failed"
printf '\357\273\277' >"$H/bom.json"
cat "$R/pass.json" >>"$H/bom.json"
bounded 0 rep_bom_json "$X" report "$H/bom.json"
printf '<testsuites><testsuite name="s"><testcase name="a\000b" classname="s"/></testsuite></testsuites>\n' >"$H/nul.xml"
bounded 1 rep_nul "$X" report "$H/nul.xml"
err_has rep_nul "$H/nul.xml: not a JUnit XML report: line 1: a NUL byte"
cp "$R/pass.json" "$H/trailing.json" && printf '{}\n' >>"$H/trailing.json"
bounded 1 rep_trailing "$X" report "$H/trailing.json"
err_has rep_trailing "not an onnxop --json report: line 2: more after the JSON object"
printf '{"cases":[\n{"name":}]}\n' >"$H/invalid.json"
bounded 1 rep_invalid_line "$X" report "$H/invalid.json"
err_has rep_invalid_line "$H/invalid.json: not an onnxop --json report: line 2: invalid JSON"

# ---- names holding '/' (other tools'): the merged JUnit keeps their classname ----
junit_report "$H/slash.xml" "" '<testcase name="t[a/b]" classname="pkg.mod"/>'
bounded 0 rep_slash "$X" report --junit "$H/slash_merged.xml" "$H/slash.xml"
if grep -q 'name="t\[a/b\]" classname="pkg.mod"' "$H/slash_merged.xml"; then ok; else
  bad "rep_slash: $(grep testcase "$H/slash_merged.xml" | head -c 300)"; fi

# ---- out of memory is said as such, apart from a report that is broken ----
python3 -c 'import json, sys
cases = [{"name": "c%d" % i, "path": "s/c%d" % i, "status": "pass", "message": None, "seconds": 0} for i in range(20000)]
json.dump({"cases": cases, "stale": [], "duplicates": [], "shard": None, "selected": 20000, "not_run": 0}, open(sys.argv[1], "w"))' "$H/many.json"
bounded 1 rep_oom_json "$X" --max-memory 4M report "$H/many.json"
err_has rep_oom_json "onnxop report: $H/many.json: out of memory reading the JSON report (the memory limit of 4194304 bytes is reached: "
if grep -q "invalid JSON" "$T/rep_oom_json.err"; then bad "rep_oom_json: says invalid JSON"; else ok; fi
python3 -c 'import sys
open(sys.argv[1], "w").write("<testsuites><testsuite name=\"s\">" + "".join("<testcase name=\"c%d\" classname=\"s\"/>" % i for i in range(100000)) + "</testsuite></testsuites>\n")' "$H/many.xml"
bounded 1 rep_oom_xml "$X" --max-memory 6M report "$H/many.xml"
err_has rep_oom_xml "onnxop report: $H/many.xml: out of memory reading the JUnit report (the memory limit of 6291456 bytes is reached: "
bounded 0 rep_many_xml "$X" report -q "$H/many.xml"
out_has rep_many_xml "100000 passed, 0 failed"
# 50,000 testsuites of one case each: read in linear time
python3 -c 'import sys
open(sys.argv[1], "w").write("<testsuites>" + "".join("<testsuite name=\"s%d\"><testcase name=\"c\" classname=\"s%d\"/></testsuite>" % (i, i) for i in range(50000)) + "</testsuites>\n")' "$H/suites.xml"
bounded 0 rep_suites "$X" report -q --junit "$H/suites_merged.xml" "$H/suites.xml"
out_has rep_suites "50000 passed, 0 failed"

# ---- test -k: a pattern that backtracks for ever is stopped, its memory counted ----
kn="$H/k/test_$(printf '%0150d' 0 | tr 0 a)xb"
mkdir -p "$H/k" && cp -r "$st/st_pass" "$kn"
bounded 2 k_backref "$X" test --list -k '(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1b' "$H/k"
err_has k_backref "onnxop test: -k '(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1b': matching the case name 'test_aaaa"
err_has k_backref "' takes more than a million steps: the pattern backtracks too much"
bounded 2 k_backref_exclude "$X" test --list --exclude '(a*)*$x' "$H/k"
err_has k_backref_exclude "onnxop test: --exclude '(a*)*\$x': matching the case name"
bounded 2 k_nested "$X" --max-memory 64M test --list -k '((a{1,100}){1,100}){1,100}' "$H/k"
err_has k_nested "onnxop test: -k '((a{1,100}){1,100}){1,100}': regular expression is too large"
# what users wrote for regcomp reads the same: back-references, '.', '$', classes, bounds
bounded 0 k_ref_ok "$X" test --list -k '^test_(a)\1{149}xb$' "$H/k"
out_has k_ref_ok "$kn"
bounded 0 k_posix "$X" test --list -k '^st_[[:alpha:]]{4}$' --exclude 'il$' "$st"
if [ "$(cat "$T/k_posix.out")" = "$st/st_pass" ]; then ok; else bad "k_posix: $(cat "$T/k_posix.out")"; fi
# glibc's own syntax reads as it did: \< \> (word start, end), {,N}, a backslash in brackets
bounded 0 k_glibc "$X" test --list -k '\<st_p.{,2}s\>' "$st"
if [ "$(cat "$T/k_glibc.out")" = "$st/st_pass" ]; then ok; else bad "k_glibc: $(cat "$T/k_glibc.out")"; fi
bounded 0 k_bracket "$X" test --list -k '[\d]$' "$st"
if [ "$(cat "$T/k_bracket.out")" = "$st/st_unsupported" ]; then ok; else bad "k_bracket: $(cat "$T/k_bracket.out")"; fi
bounded 2 k_bad_translated "$X" test --list -k '\<(' "$st"
err_has k_bad_translated "onnxop test: -k '\<(' (for PCRE2: '\b(?=\w)('): missing closing parenthesis (at offset 9 of the latter)"
