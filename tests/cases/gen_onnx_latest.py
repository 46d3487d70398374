#!/usr/bin/python3
"""Make the node cases onnx's generator gained or changed after the suite's snapshot.

../shared/onnx-node-tests is onnx's node-test data as it was when onnx removed
it (PR #7959, 2026-08-04). onnx's case generator (onnx/backend/test/case/node/
*.py) lives on; this script runs its export functions from an onnx source tree
and writes the cases listed in CASES below in the ONNX test layout, with the
expected outputs the generator computes (numpy, and onnx's reference helpers in
that tree). onnxop computes nothing here.

It runs under Debian's /usr/bin/python3 (numpy, python3-onnx 1.12): onnx's own
Python package at that commit cannot be built with Debian 12's toolchain, so the
generator's files are loaded from the tree by path, with small stand-ins for the
parts of onnx they import (Base, expect, OpRun), and Debian's onnx for
onnx.helper and the protobuf classes. What expect() needs from onnx's C++
schemas (since_version, function bodies, attribute defaults) comes from
onnx_expand.cc, built against that tree. tests/cases/README.md has the commands.

usage: gen_onnx_latest.py ONNX_SRC ONNX_EXPAND OUT_DIR [--commit HASH] [--audit SUITE]
  --commit HASH: the tree's onnx commit, named in each case's SOURCE.
  --audit SUITE: instead of writing, compare every case the eight generator
  files make with the same-named case in SUITE and print which are new,
  changed, the same, or the same but for rounding (what CASES was checked
  with).
"""

import argparse
import ast
import copy
import importlib.util
import os
import subprocess
import sys
import tempfile
import types

import numpy as np
import onnx
from onnx import AttributeProto, ModelProto, helper, numpy_helper

# The generator's files that gained or changed cases, and the cases taken from
# them (with their _expanded twins when the op has a function body).
FILES = ["rnn", "gru", "lstm", "reducemax", "reversesequence", "unique",
         "qlinearmatmul", "attention"]
CASES = {
    # new (onnx #7935, #8312, #8108)
    "test_simple_rnn_reverse", "test_simple_rnn_bidirectional",
    "test_gru_reverse", "test_gru_bidirectional",
    "test_lstm_reverse", "test_lstm_bidirectional",
    "test_reduce_max_empty_set_bool",
    "test_attention_local_window", "test_attention_bidirectional_window",
    "test_attention_local_window_default",
    "test_attention_local_window_rank1_boolean_mask",
    "test_attention_local_window_with_past",
    "test_attention_local_window_ext_cache_rank3_head_mask",
    "test_attention_local_window_ext_cache_rank4_batch_mask",
    "test_attention_local_window_ext_cache_rank2_mask",
    "test_attention_local_window_ext_cache_float16_mask",
    "test_attention_3d_local_window",
    "test_attention_local_window_gqa_rank4_mask",
    # changed (onnx #7991, #8304, #8180)
    "test_qlinearmatmul_3D_int8_float32", "test_qlinearmatmul_3D_int8_float16",
    "test_reversesequence_batch",
    "test_unique_sorted_without_axis", "test_unique_not_sorted_without_axis",
    "test_unique_sorted_with_axis", "test_unique_sorted_with_axis_3d",
    "test_unique_sorted_with_negative_axis", "test_unique_length_1",
}

captured = []  # (name, node, inputs, outputs, kwargs), in the generator's order


# --- stand-ins for the parts of onnx the generator's files import ----------

class _Exporter(type):
    """As onnx.backend.test.case.base._Exporter: each export* runs once, at
    class creation, right after np.random.seed(0)."""

    def __init__(cls, name, bases, dct):
        for k, v in dct.items():
            if k.startswith("export"):
                np.random.seed(seed=0)
                getattr(cls, k)()
        super().__init__(name, bases, dct)


class Base(metaclass=_Exporter):
    pass


def expect(node, inputs, outputs, name, **kwargs):
    """Records the case; write_case() then does what onnx's expect() does."""
    captured.append((name, copy.deepcopy(node), list(inputs), list(outputs),
                     copy.deepcopy(kwargs)))


class OpRun:
    pass


def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


def install_onnx_parts(src):
    # Debian's onnx 1.12 lacks these two helpers (onnx 1.13 added them).
    if not hasattr(helper, "np_dtype_to_tensor_dtype"):
        helper.np_dtype_to_tensor_dtype = \
            lambda dt: onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
    if not hasattr(helper, "tensor_dtype_to_np_dtype"):
        helper.tensor_dtype_to_np_dtype = \
            lambda t: onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[t]
    _module("onnx.backend.test.case.base", Base=Base)
    _module("onnx.backend.test.case.node", expect=expect)
    _module("onnx.reference.op_run", OpRun=OpRun)
    _load(os.path.join(src, "onnx/reference/ops/op_attention.py"),
          "onnx.reference.ops.op_attention")


def version_map(src):
    """onnx.helper.OP_SET_ID_VERSION_MAP of the tree: (domain, opset) -> IR."""
    tree = ast.parse(open(os.path.join(src, "onnx/helper.py")).read())
    table = None
    for stmt in tree.body:
        target = getattr(stmt, "target", None) or (stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "VERSION_TABLE":
            table = ast.literal_eval(stmt.value)
    result = {}
    for row in table:
        for pair in zip(["ai.onnx", "ai.onnx.ml", "ai.onnx.training"], row[2:]):
            if pair not in result:
                result[pair] = row[1]
                if pair[0] == "ai.onnx":
                    result["ai.onnx.preview", pair[1]] = row[1]
                if pair[0] == "ai.onnx.training":
                    result["ai.onnx.preview.training", pair[1]] = row[1]
    return result, table[-1][2:5]


# --- what onnx's expect() does with a case ------------------------------------

def value_info(arr, name, type_proto=None):
    if type_proto is None:
        t = helper.np_dtype_to_tensor_dtype(arr.dtype)
        type_proto = helper.make_tensor_type_proto(t, arr.shape)
    return helper.make_value_info(name, type_proto)


def make_test_model(graph, irmap, latest, opsets):
    """onnx's _make_test_model_gen_version: the IR version the opsets need,
    or the newest IR for an opset one past the newest release."""
    model = helper.make_model(graph, producer_name="backend-test", opset_imports=opsets)
    for o in opsets:
        dom = o.domain or "ai.onnx"
        if (dom == "ai.onnx" and o.version == latest[0] + 1) or \
           (dom == "ai.onnx.ml" and o.version == latest[1] + 1):
            raise SystemExit("an unreleased opset: give the tree's onnx.IR_VERSION here")
    model.ir_version = max(irmap[(o.domain or "ai.onnx", o.version)] for o in opsets) if opsets else 3
    return model


def rename_node(node, rename, attrs, prefix):
    """onnx's _rename_edges_helper: a body node with its edges renamed and its
    attribute references resolved against the calling node's attributes."""
    new = onnx.NodeProto()
    new.CopyFrom(node)
    new.ClearField("input")
    new.ClearField("output")
    new.ClearField("attribute")
    new.input.extend(rename(x) for x in node.input)
    new.output.extend(rename(x) for x in node.output)
    for a in node.attribute:
        if a.ref_attr_name:
            if a.ref_attr_name in attrs:
                b = AttributeProto()
                b.CopyFrom(attrs[a.ref_attr_name])
                b.name = a.name
                new.attribute.extend([b])
            continue
        b = AttributeProto()
        b.CopyFrom(a)
        if a.type == AttributeProto.GRAPH:
            g = b.g
            local = {}
            for d in list(g.input) + list(g.output) + list(g.initializer):
                local[d.name] = d.name = prefix + d.name
            for s in g.sparse_initializer:
                local[s.values.name] = s.values.name = prefix + s.values.name
            for s in g.sparse_initializer:
                local[s.indices.name] = s.indices.name = prefix + s.indices.name

            def sub(n, local=local):
                return local[n] if n in local else rename(n)
            nodes = [rename_node(x, sub, attrs, prefix) for x in g.node]
            g.ClearField("node")
            g.node.extend(nodes)
        new.attribute.extend([b])
    return new


def expand(node, func, prefix):
    """onnx's function_expand_helper."""
    names = {}
    for i, x in enumerate(func.input):
        names[x] = node.input[i] if i < len(node.input) else ""
    for i, x in enumerate(func.output):
        if i < len(node.output) and node.output[i] != "":
            names[x] = node.output[i]
    attrs = {a.name: a for a in node.attribute}

    def rename(n):
        if n in names:
            return names[n]
        return "" if n == "" else prefix + n
    return [rename_node(x, rename, attrs, prefix) for x in func.node]


def schema_answers(tool, node, inputs_vi, opsets, tmp):
    """since_version, function bodies, node with defaults: from onnx_expand."""
    q = helper.make_model(helper.make_graph([node], "q", inputs_vi, []),
                          opset_imports=opsets or [])
    if not opsets:
        del q.opset_import[:]
    qin, qout = os.path.join(tmp, "q.onnx"), os.path.join(tmp, "a.onnx")
    with open(qin, "wb") as f:
        f.write(q.SerializeToString())
    subprocess.run([tool, qin, qout], check=True)
    a = ModelProto()
    with open(qout, "rb") as f:
        a.ParseFromString(f.read())
    return a.model_version, list(a.functions), a.graph.node[0]


def build(case, tool, irmap, latest, tmp):
    """onnx's expect(): [(case name, model, inputs, outputs)], the node's case
    first, then one _expanded case per function body."""
    name, node, inputs, outputs, kwargs = case
    kwargs = copy.deepcopy(kwargs)
    in_types = kwargs.pop("input_type_protos", [None] * len(inputs))
    out_types = kwargs.pop("output_type_protos", [None] * len(outputs))
    present_in = [x for x in node.input if x != ""]
    present_out = [x for x in node.output if x != ""]
    inputs_vi = [value_info(a, n, t) for a, n, t in zip(inputs, present_in, in_types)]
    outputs_vi = [value_info(a, n, t) for a, n, t in zip(outputs, present_out, out_types)]
    opsets = kwargs.pop("opset_imports", None)
    if kwargs:
        raise SystemExit(f"{name}: expect() arguments this script does not know: {list(kwargs)}")

    since, funcs, node_defaults = schema_answers(tool, node, inputs_vi, opsets, tmp)
    if opsets is None:
        opsets = [helper.make_operatorsetid(node.domain, since)]
    graph = helper.make_graph([node], name, inputs_vi, outputs_vi)
    made = [(name, make_test_model(graph, irmap, latest, opsets), inputs, outputs)]

    prefix = node.op_type + "_" + name + "_expanded_function_"
    for func in funcs:
        nodes = expand(node_defaults, func, prefix)
        for fo in func.opset_import:
            match = [o for o in opsets if o.domain == fo.domain]
            if match:
                match[0].version = fo.version
            else:
                opsets.append(fo)
        ai = [o for o in opsets if o.domain in ("", "ai.onnx")]
        ename = name + "_expanded"
        if len(ai) == 1 and ai[0].version != since:
            ename += f"_ver{ai[0].version}"
        g = helper.make_graph(nodes, ename, inputs_vi, outputs_vi)
        made.append((ename, make_test_model(g, irmap, latest, opsets), inputs, outputs))
    return made


def write(out_dir, made, source):
    name, model, inputs, outputs = made
    d = os.path.join(out_dir, name)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, values, vis in (("input", inputs, model.graph.input),
                              ("output", outputs, model.graph.output)):
        for j, v in enumerate(values):
            with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(v, vis[j].name).SerializeToString())
    with open(os.path.join(d, "SOURCE"), "w") as f:
        f.write(source + "\n")


def compare_case(made, suite):
    """SUITE's case of that name against this one: "same"; "rounding N" when
    the model and inputs are the same and the outputs differ by at most N
    units in the last place of their type (N <= 16: another numpy or BLAS
    computed them, summing in another order); else "changed"."""
    name, model, inputs, outputs = made
    d = os.path.join(suite, name)
    theirs = onnx.load(os.path.join(d, "model.onnx"))
    if theirs.graph.SerializeToString() != model.graph.SerializeToString() or \
       list(theirs.opset_import) != list(model.opset_import) or theirs.ir_version != model.ir_version:
        return "changed"
    state, worst = "same", 0.0
    for kind, values in (("input", inputs), ("output", outputs)):
        for j, v in enumerate(values):
            t = onnx.TensorProto()
            with open(os.path.join(d, "test_data_set_0", f"{kind}_{j}.pb"), "rb") as f:
                t.ParseFromString(f.read())
            w = numpy_helper.to_array(t)
            if w.dtype != v.dtype or w.shape != v.shape:
                return "changed"
            if np.array_equal(w, v, equal_nan=v.dtype.kind in "fc"):
                continue
            if kind == "input" or v.dtype.kind != "f":
                return "changed"
            ulps = np.abs(w.astype(np.float64) - v.astype(np.float64)) / np.spacing(np.abs(w))
            worst = max(worst, float(np.nanmax(ulps)))
            if not worst <= 16:
                return "changed"
            state = f"rounding {worst:.0f}"
    return state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onnx_src")
    ap.add_argument("onnx_expand")
    ap.add_argument("out_dir")
    ap.add_argument("--audit", metavar="SUITE")
    ap.add_argument("--commit", default="", help="the tree's onnx commit, for SOURCE")
    args = ap.parse_args()

    src = os.path.abspath(args.onnx_src)
    install_onnx_parts(src)
    irmap, latest = version_map(src)
    origin = {}
    for f in FILES:
        before = len(captured)
        _load(os.path.join(src, "onnx/backend/test/case/node", f + ".py"), "onnx_case_" + f)
        for c in captured[before:]:
            origin[c[0]] = f

    with tempfile.TemporaryDirectory() as tmp:
        if args.audit:
            for c in captured:
                for m in build(c, args.onnx_expand, irmap, latest, tmp):
                    exists = os.path.isdir(os.path.join(args.audit, m[0]))
                    state = compare_case(m, args.audit) if exists else "new"
                    wanted = "taken" if c[0] in CASES else "-"
                    print(f"{state:11} {wanted:6} {m[0]}")
            return
        missing = CASES - {c[0] for c in captured}
        if missing:
            raise SystemExit(f"the generator made no case {sorted(missing)}")
        for c in captured:
            if c[0] not in CASES:
                continue
            for m in build(c, args.onnx_expand, irmap, latest, tmp):
                write(args.out_dir, m,
                      f"onnx's generator at {args.commit or 'the given tree'}: "
                      f"onnx/backend/test/case/node/{origin[c[0]]}.py, run by "
                      f"tests/cases/gen_onnx_latest.py (numpy {np.__version__}); see README.md")
                print(m[0])


if __name__ == "__main__":
    main()
