# tests/cli/graphs.sh: graphs as they are met in the wild (sourced by
# tests/cli/run.sh; the models are tests/bad/gen.c's): nodes out of
# topological order run in dependency order with one warning (run, test,
# bench, info); two writers of one name are refused by index and name, with
# what onnxruntime does and the repair; a 3000-node graph's info is counts by op.
W="$T/graphs"
mkdir -p "$W"
if ! "$B/bad-gen" "$W/gen" >/dev/null; then
  bad "graphs: $B/bad-gen failed"
else
  WARN="warning: $W/gen/g_unsorted.onnx: the nodes are not in topological order: node 0 'add_first' Add reads 'y', which node 1 'neg_second' Neg writes; they run in dependency order, as onnxruntime runs them"
  # z = Add(y, x) is listed before y = Neg(x): with x = [1, 2], z = [0, 0]
  expect 0 unsorted_run "$X" run "$W/gen/g_unsorted.onnx" --in 'x=float32[2]:1,2'
  err_has unsorted_run "onnxop run: $WARN"
  out_has unsorted_run "[0., 0.]"
  [ "$(wc -l <"$T/unsorted_run.err")" = 1 ] && ok || bad "unsorted_run: the warning is not one line"
  mkdir -p "$W/cases/unsorted/test_data_set_0" && cp "$W/gen/g_unsorted.onnx" "$W/cases/unsorted/model.onnx"
  "$X" convert 'float32[2]:1,2' "$W/cases/unsorted/test_data_set_0/input_0.pb"
  "$X" convert 'float32[2]:0,0' "$W/cases/unsorted/test_data_set_0/output_0.pb"
  expect 0 unsorted_test "$X" test "$W/cases"
  out_has unsorted_test "1 passed, 0 failed"
  err_has unsorted_test "onnxop test: warning: $W/cases/unsorted/model.onnx: the nodes are not in topological order"
  expect 0 unsorted_bench "$X" bench "$W/gen/g_unsorted.onnx" --in 'x=float32[2]:1,2' --runs 2 --warmup 0
  err_has unsorted_bench "onnxop bench: $WARN"
  expect 0 unsorted_info "$X" info "$W/gen/g_unsorted.onnx"
  out_has unsorted_info "  order: the nodes are not in topological order: node 0 'add_first' Add reads 'y', which node 1 'neg_second' Neg writes; \`run\` evaluates them in dependency order"
  expect 0 unsorted_info_json "$X" info --json "$W/gen/g_unsorted.onnx"
  out_has unsorted_info_json "\"order\":\"the nodes are not in topological order: node 0 'add_first' Add reads 'y'"
  expect 0 sorted_info_json "$X" info --json "$T/sequence_at.onnx"
  out_lacks sorted_info_json '"order"'
  expect 0 sorted_run "$X" run "$T/sequence_at.onnx" --in "$S/seq3.json" --in 'position=int64[]:-2'
  [ -s "$T/sorted_run.err" ] && bad "sorted_run: a model in order warns: $(cat "$T/sorted_run.err")" || ok
  # two Constants write k (and five more pairs): refused by run and info alike
  DUP="nodes 0 'c_first' Constant and 2 'c_last' Constant both write 'k' (5 more node outputs repeat a name): onnx requires one writer per name; onnxruntime keeps the last, node 2, for every reader of 'k', so removing node 0 repairs the model the way onnxruntime reads it"
  expect 1 dup_run "$X" run "$W/gen/g_two_constants.onnx" --in 'x=float32[1]:1'
  err_has dup_run "g_two_constants.onnx: $DUP"
  expect 1 dup_info "$X" info "$W/gen/g_two_constants.onnx"
  out_has dup_info "  invalid: $DUP"
  expect 1 dup_other "$X" run "$W/gen/g_two_writers.onnx" --in 'x=float32[1]:1'
  err_has dup_other "nodes 0 'first' Identity and 1 'second' Neg both write 'y': onnx requires one writer per name, and onnxruntime refuses it too; rename the output of one of them"
  # 3000 nodes: counts by op and the node that cannot run, by index; --full: all
  expect 0 big_info "$X" info "$W/gen/g_3000_nodes.onnx"
  out_has big_info "  nodes: 3000"
  out_has big_info "    Neg-13: 1500"
  out_has big_info "    Abs-13: 1499"
  out_has big_info "      2999: Frobnicate '' (v2998) -> (y)  [unsupported in this build: opset 13]"
  out_has big_info "  1 node cannot run in this build (operator unsupported)"
  [ "$(wc -l <"$T/big_info.out")" -lt 30 ] && ok || bad "big_info: $(wc -l <"$T/big_info.out") lines"
  expect 0 big_info_full "$X" info --full "$W/gen/g_3000_nodes.onnx"
  out_has big_info_full "    Abs-13 '' (v0) -> (v1)"
  [ "$(wc -l <"$T/big_info_full.out")" -gt 3000 ] && ok || bad "big_info_full: $(wc -l <"$T/big_info_full.out") lines"
  # run --trace past 100 nodes: a summary by op and the first NaN; --full: each node
  expect 0 big_trace "$X" run --trace "$W/gen/g_200_nodes.onnx" --in 'x=float32[2]:1,2'
  err_has big_trace "onnxop run: $W/gen/g_200_nodes.onnx: 200 nodes: the trace is a summary by op (--full: each node)"
  err_has big_trace "summary: 200 nodes run, by op:"
  err_has big_trace "      100  Neg-13"
  err_has big_trace "       99  Abs-13"
  err_has big_trace "first NaN or Inf: node '' Sqrt-13, output 0 'y': 2 NaN, 0 Inf"
  [ "$(wc -l <"$T/big_trace.err")" -lt 10 ] && ok || bad "big_trace: $(wc -l <"$T/big_trace.err") lines"
  expect 0 big_time "$X" run --time "$W/gen/g_200_nodes.onnx" --in 'x=float32[2]:1,2'
  err_has big_time "200 nodes: the time is a summary by op (--full: each node)"
  err_has big_time "summary: 200 nodes run, by op (time: the nodes' wall time; an If's, Loop's or Scan's includes its subgraph's nodes):"
  expect 0 big_trace_full "$X" run --trace --full "$W/gen/g_200_nodes.onnx" --in 'x=float32[2]:1,2'
  grep -q "^summary:" "$T/big_trace_full.err" && bad "big_trace_full: a summary" || ok
  [ "$(grep -c "^node '' " "$T/big_trace_full.err")" = 200 ] && ok || bad "big_trace_full: not 200 nodes traced"
  expect 0 small_trace "$X" run --trace "$W/gen/g_unsorted.onnx" --in 'x=float32[2]:1,2'
  grep -q "^summary:" "$T/small_trace.err" && bad "small_trace: a summary for 2 nodes" || ok
fi
