#!/usr/bin/python3
"""tests/cases/gen_quant.py ORT_DIR: onnxruntime's own tests of its com.microsoft
quantized operators (cases tests/cases/msq_*) and fused operators (msf_*),
written as ONNX test cases (model.onnx, test_data_set_0/input_K.pb and
output_K.pb, data.json with the tolerance, SOURCE). gen_contrib.py does the
transformer set (ms_*) the same way.

The expected values are onnxruntime's, copied, never computed by onnxop:
  - OpTester tests of onnxruntime/test/contrib_ops/*_test.cc under ORT_DIR
    (an onnxruntime checkout, or those files copied out of one) whose inputs
    and outputs are literals: read from the C++ by translate() below, every
    such TEST (and test function) of the files in LITERAL_FILES that it can
    read; what it cannot read (loops, random data, helpers it does not know)
    is left to the ports below, and listed with -v;
  - tests that draw random inputs and compare with a reference of their own:
    their shapes, attributes and parameter forms, with inputs drawn here
    (seeded), and the outputs computed by onnxruntime-node's CPU kernel (the
    kernel those tests check), through bench/ort.js; tests/cases/README.md
    allows that, with the version in SOURCE. The tolerance is the test's.
Needs Debian's python3-onnx and numpy (/usr/bin/python3), and for the second
kind node and onnxruntime-node (ORT_NODE_DIR, default /tmp/ort; `npm install
--ignore-scripts onnxruntime-node` there). Re-running it rewrites the msq_*
and msf_* cases and no other.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_COMMIT = "735e69a3 (onnxruntime main, 2026-02-13, via the tianleiwu/onnxruntime mirror)"
MS = "com.microsoft"
VERBOSE = "-v" in sys.argv

# OpTester's default tolerances per output type (test/unittest_util/checkers.cc):
# (atol, rtol); integers exactly.
TOL = {"float": (1e-5, 1e-4), "MLFloat16": (0.0025, 0.001), "double": (1e-5, 1e-5), "BFloat16": (0.02, 0.01)}
TOL_WHY = "OpTester's defaults for the output type (test/unittest_util/checkers.cc)"

# C++ element types -> (TensorProto type, numpy type)
CTYPES = {"float": (TensorProto.FLOAT, np.float32), "MLFloat16": (TensorProto.FLOAT16, np.float16),
          "double": (TensorProto.DOUBLE, np.float64), "uint8_t": (TensorProto.UINT8, np.uint8),
          "int8_t": (TensorProto.INT8, np.int8), "int16_t": (TensorProto.INT16, np.int16),
          "uint16_t": (TensorProto.UINT16, np.uint16), "int32_t": (TensorProto.INT32, np.int32),
          "int64_t": (TensorProto.INT64, np.int64), "bool": (TensorProto.BOOL, np.bool_),
          "UInt4x2": (21, np.uint8), "Int4x2": (22, np.int8), "BFloat16": (TensorProto.BFLOAT16, np.float32)}


def tensor(name, ttype, dims, values):
    """a TensorProto of ONNX type ttype (4-bit ones packed, two a byte, low nibble first)"""
    t = TensorProto()
    t.name = name
    t.data_type = ttype
    t.dims.extend(int(d) for d in dims)
    n = int(np.prod(dims)) if dims else 1
    vals = list(values)
    if len(vals) != n:
        raise ValueError("%s: %d values for shape %s" % (name, len(vals), dims))
    if ttype in (21, 22):  # uint4, int4
        nib = [int(v) & 15 for v in vals] + [0]
        t.raw_data = bytes(nib[i] | (nib[i + 1] << 4) for i in range(0, n, 2))
    elif ttype == TensorProto.BFLOAT16:
        f = np.array(vals, np.float32).view(np.uint32)
        t.raw_data = ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype(np.uint16).tobytes()
    else:
        np_t = {v[0]: v[1] for v in CTYPES.values() if v[0] not in (21, 22, TensorProto.BFLOAT16)}[ttype]
        t.raw_data = np.array(vals, dtype=np_t).tobytes()
    return t


def from_np(name, a):
    return tensor(name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape), a.reshape(-1).tolist())


def write_case(name, op, domain, attrs, inputs, outputs, source, atol, rtol, opset=1, inits=()):
    """inputs: TensorProtos (None for an input left out); outputs: TensorProtos
    (None for an output the node leaves unnamed); inits: indices of inputs that
    are initializers of the model (as the test makes them), not data set inputs"""
    d = os.path.join(HERE, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    in_names = ["" if t is None else "input_%d" % i for i, t in enumerate(inputs)]
    while in_names and not in_names[-1]:
        in_names.pop()
    out_names = ["" if t is None else "output_%d" % k for k, t in enumerate(outputs)]
    node = helper.make_node(op, in_names, out_names, domain=domain or None, name=name)
    node.attribute.extend(attrs)
    vi = lambda n, t: helper.make_tensor_value_info(n, t.data_type, list(t.dims))
    graph_in, init = [], []
    for i, (n, t) in enumerate(zip(in_names, inputs)):
        if not n:
            continue
        if i in inits:
            c = TensorProto()
            c.CopyFrom(t)
            c.name = n
            init.append(c)
        else:
            graph_in.append(vi(n, t))
    graph = helper.make_graph([node], name, graph_in, [vi(n, t) for n, t in zip(out_names, outputs) if n],
                              initializer=init)
    imports = [helper.make_opsetid("", 17)]
    if domain:
        imports.append(helper.make_opsetid(domain, opset))
    model = helper.make_model(graph, opset_imports=imports, producer_name="tests/cases/gen_quant.py")
    model.ir_version = 9 if any(t is not None and t.data_type in (21, 22) for t in inputs + outputs) else 8
    onnx.save(model, os.path.join(d, "model.onnx"))
    k = 0
    for i, (n, t) in enumerate(zip(in_names, inputs)):
        if n and i not in inits:
            c = TensorProto()
            c.CopyFrom(t)
            c.name = n
            open(os.path.join(d, "test_data_set_0", "input_%d.pb" % k), "wb").write(c.SerializeToString())
            k += 1
    k = 0
    for n, t in zip(out_names, outputs):
        if n:
            c = TensorProto()
            c.CopyFrom(t)
            c.name = n
            open(os.path.join(d, "test_data_set_0", "output_%d.pb" % k), "wb").write(c.SerializeToString())
            k += 1
    json.dump({"atol": atol, "rtol": rtol}, open(os.path.join(d, "data.json"), "w"))
    open(os.path.join(d, "SOURCE"), "w").write(source.strip() + "\n")
    return name


# ---- reading OpTester tests out of the C++ ----

# the preprocessor symbols of onnxruntime's CPU build on x86-64 (the tests
# behind #ifdef USE_CUDA and the like are another provider's)
DEFINED = {"MLAS_TARGET_AMD64_IX86", "MLAS_TARGET_AMD64", "ORT_NEURAL_SPEED"}


def pp_true(cond):
    e = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
               lambda m: str((m.group(1) or m.group(2)) in DEFINED), cond)
    e = e.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    try:
        return bool(eval(e, {"__builtins__": {}}, {"True": True, "False": False}))
    except (SyntaxError, NameError):
        return True


def strip_comments(text):
    """comments out, and what the preprocessor leaves out of the CPU build"""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    out, stack = [], []  # stack: (keeping, a branch taken)
    for line in text.split("\n"):
        st = line.strip()
        keep = all(k for k, _ in stack)
        m = re.match(r"#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)", st)
        if not m:
            if keep:
                out.append(line)
            continue
        d, cond = m.group(1), m.group(2).strip()
        if d in ("ifdef", "ifndef", "if"):
            v = (cond in DEFINED) if d == "ifdef" else (cond not in DEFINED) if d == "ifndef" else pp_true(cond)
            stack.append((v, v))
        elif d == "elif" and stack:
            taken = stack[-1][1]
            v = not taken and pp_true(cond)
            stack[-1] = (v, taken or v)
        elif d == "else" and stack:
            stack[-1] = (not stack[-1][1], True)
        elif d == "endif" and stack:
            stack.pop()
    return "\n".join(out)


def blocks(text):
    """(kind, name, params, body) of each TEST(...) and each function or
    lambda body that holds an OpTester"""
    out = []
    for m in re.finditer(r"TEST\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{|(?:void|static void)\s+(\w+)\s*\(([^)]*)\)\s*\{|"
                         r"auto\s+(\w+)\s*=\s*\[[^\]]*\]\s*\(([^)]*)\)\s*\{", text):
        start = m.end()
        depth, i = 1, start
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        body = text[start:i - 1]
        if m.group(2):
            out.append(("test", m.group(1) + "." + m.group(2), "", body))
        elif m.group(3):
            out.append(("fn", m.group(3), m.group(4), body))
        else:
            out.append(("lambda", m.group(5), m.group(6), body))
    return out


NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?"


def cnum(tok, env):
    tok = tok.strip()
    if tok in env:
        return env[tok]
    e = re.sub(r"(\d|\.)[fF]\b", r"\1", tok)
    e = re.sub(r"static_cast<\w+>\(([^()]*)\)", r"(\1)", e)
    if not re.fullmatch(r"[-+*/()\s\d.eE\w]*", e):
        raise ValueError(tok)
    for k, v in env.items():
        if isinstance(v, (int, float)):
            e = re.sub(r"\b%s\b" % re.escape(k), repr(v), e)
    if re.search(r"[A-Za-z_]", re.sub(r"\d[eE][-+]?\d", "", e)):
        raise ValueError(tok)
    return eval(e, {"__builtins__": {}})


def split_top(s):
    """split on commas not inside (), {}, <>"""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "({<[":
            depth += 1
        elif ch in ")}>]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts]


def values(expr, env):
    expr = expr.strip()
    m = re.fullmatch(r"ToFloat16\((.*)\)|FloatsToMLFloat16s\((.*)\)", expr, re.S)
    if m:
        expr = (m.group(1) or m.group(2)).strip()
    if expr in env and isinstance(env[expr], list):
        return env[expr]
    if expr.startswith("{") and expr.endswith("}"):
        inner = expr[1:-1].strip()
        return [cnum(t, env) for t in split_top(inner)] if inner else []
    raise ValueError(expr)


def translate(body, params):
    """the node of one OpTester test whose values are all literals, or None"""
    env = {}
    for p in params.split(","):  # a test function's parameters: bools false, as its first call
        m = re.fullmatch(r"\s*bool\s+(\w+)\s*", p)
        if m:
            env[m.group(1)] = False
        elif p.strip():
            return None
    t = {"op": None, "attrs": [], "inputs": [], "outputs": [], "abs": None, "rel": None, "inits": []}
    for st in [s.strip() for s in body.split(";")]:
        if not st:
            continue
        try:
            m = re.fullmatch(r"OpTester\s+test\(\s*\"(\w+)\"\s*,\s*(\d+)\s*,\s*(?:onnxruntime::)?kMSDomain\s*\)", st)
            if m:
                t["op"], t["opset"] = m.group(1), int(m.group(2))
                continue
            m = re.fullmatch(r"(?:const\s+)?std::vector<(\w+)>\s+(\w+)\s*(?:=\s*)?(\{.*\})", st, re.S)
            if m:
                env[m.group(2)] = values(m.group(3), env)
                continue
            m = re.fullmatch(r"(?:const\s+|constexpr\s+)?(?:float|int|int64_t|int8_t|uint8_t|int32_t|bool)\s+(\w+)\s*=\s*(.+)",
                             st, re.S)
            if m:
                v = m.group(2).strip()
                env[m.group(1)] = {"true": True, "false": False}.get(v) if v in ("true", "false") else cnum(v, env)
                continue
            m = re.fullmatch(r"test\.AddAttribute<(\w+)>\(\s*\"(\w+)\"\s*,\s*(.+)\)", st, re.S)
            if m:
                ty, n, v = m.groups()
                if ty == "std::string" or v.strip().startswith('"'):
                    t["attrs"].append(helper.make_attribute(n, v.strip().strip('"')))
                elif ty in ("int64_t", "int"):
                    t["attrs"].append(helper.make_attribute(n, int(cnum(v, env))))
                elif ty == "float":
                    t["attrs"].append(helper.make_attribute(n, float(np.float32(cnum(v, env)))))
                else:
                    return None
                continue
            m = re.fullmatch(r"test\.AddAttribute\(\s*\"(\w+)\"\s*,\s*(.+)\)", st, re.S)
            if m:
                v = m.group(2).strip()
                if v.startswith("std::vector<float>"):
                    t["attrs"].append(helper.make_attribute(m.group(1), [float(x) for x in values(v[18:], env)]))
                elif v.startswith("std::vector<int64_t>"):
                    t["attrs"].append(helper.make_attribute(m.group(1), [int(x) for x in values(v[20:], env)]))
                elif v.startswith('"') or v.startswith("std::string"):
                    t["attrs"].append(helper.make_attribute(m.group(1), re.sub(r'std::string\("(.*)"\)', r"\1", v).strip('"')))
                else:
                    return None
                continue
            m = re.fullmatch(r"test\.AddOptionalInputEdge<(\w+)>\(\)", st)
            if m:
                t["inputs"].append(None)
                continue
            m = re.fullmatch(r"test\.(AddInput|AddOutput)<(\w+)>\((.*)\)", st, re.S)
            if m:
                kind, ty, args = m.groups()
                a = split_top(args)
                n, dims, vals = a[0].strip('"'), a[1], a[2]
                dims = [int(x) for x in values(dims, env)] if dims.startswith("{") or dims in env else None
                if dims is None or ty not in CTYPES:
                    return None
                ttype = CTYPES[ty][0]
                vs = values(vals, env)
                if ty == "UInt4x2" or ty == "Int4x2":
                    return None
                tp = tensor(n, ttype, dims, vs)
                if kind == "AddInput":
                    if len(a) > 3 and str(a[3]).strip() not in ("false",) and env.get(a[3].strip()) is not False:
                        t["inits"].append(len(t["inputs"]))
                    t["inputs"].append(tp)
                else:
                    if len(a) > 3:  # sort_output, rel_error, abs_error
                        if a[3].strip() not in ("false", "false /* sort_output */"):
                            return None
                        if len(a) > 4:
                            t["rel"] = float(cnum(a[4].split("/*")[0], env))
                        if len(a) > 5:
                            t["abs"] = float(cnum(a[5].split("/*")[0], env))
                    t["outputs"].append((ty, tp))
                continue
            if re.fullmatch(r".*excluded_providers.*|test\.Run\(.*\)|test\.RunWithConfig\(\)|auto\s+origin_round_mode\s*=.*|"
                            r"std::fesetround\(.*\)|.*GTEST_SKIP.*|return|\}|if\s*\(.*\)\s*\{", st, re.S):
                continue
            m = re.fullmatch(r"test\.SetOutput(Abs|Rel)Err\(\s*\"\w+\"\s*,\s*(.+)\)", st)
            if m:
                t["abs" if m.group(1) == "Abs" else "rel"] = float(cnum(m.group(2), env))
                continue
            return None
        except (ValueError, KeyError, SyntaxError, TypeError):
            return None
    if not t["op"] or not t["outputs"]:
        return None
    return t


# the files whose literal tests are ported by translate()
LITERAL_FILES = ["quantize_ops_test.cc", "qlinear_lookup_table_test.cc", "qlinear_concat_test.cc",
                 "qlinear_global_average_pool_test.cc", "qlinear_pool_test.cc", "quant_gemm_test.cc",
                 "gather_block_quantized_op_test.cc", "dynamic_quantize_matmul_test.cc",
                 "matmul_integer_to_float_test.cc", "qlinear_binary_op_test.cc", "matmul_4bits_test.cc",
                 "matmul_8bits_test.cc", "fused_conv_test.cc", "fused_matmul_op_test.cc"]
FUSED = ("FusedConv", "FusedGemm", "FusedMatMul", "TransposeMatMul")


def snake(s):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()
    return re.sub(r"[^a-z0-9]+", "_", s).strip("_")


def literal_cases(ort_dir):
    made, skipped = [], []
    for f in LITERAL_FILES:
        path = os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)
        text = strip_comments(open(path).read())
        seen = set()
        for kind, name, params, body in blocks(text):
            if "OpTester" not in body or body.count("OpTester test(") != 1 or "OVEP" in name:
                continue  # (OVEP: tests of the OpenVINO provider alone)
            t = translate(body, params)
            if not t:
                skipped.append("%s %s" % (f, name))
                continue
            pre = "msf_" if t["op"] in FUSED else "msq_"
            cname = pre + snake(name.split(".")[-1])
            if t["op"].lower().replace("_", "") not in cname.replace("_", ""):
                cname = pre + snake(t["op"]) + "_" + snake(name.split(".")[-1])
            if cname in seen:
                continue
            seen.add(cname)
            ty = t["outputs"][0][0]
            atol, rtol = TOL.get(ty, (0, 0))
            why = TOL_WHY if ty in TOL else "integers, exactly"
            if t["abs"] is not None or t["rel"] is not None:
                atol = t["abs"] if t["abs"] is not None else atol
                rtol = t["rel"] if t["rel"] is not None else rtol
                why = "the test's own"
            src = ("Expected outputs from onnxruntime's onnxruntime/test/contrib_ops/%s at %s: %s %s, its literal "
                   "inputs and outputs. Tolerance atol %g, rtol %g: %s." %
                   (f, ORT_COMMIT, "TEST" if kind == "test" else "the test function", name, atol, rtol, why))
            made.append(write_case(cname, t["op"], MS, t["attrs"], t["inputs"], [o[1] for o in t["outputs"]], src,
                                   atol, rtol, t.get("opset", 1), inits=t["inits"]))
    if VERBOSE:
        print("not read from the C++ (ported below where they are):\n  " + "\n  ".join(skipped))
    return made


# ---- a little more C++: the data a test function defines, and its calls ----

def values_nested(expr, env):
    """{...} of numbers or of {...}s (vectors of vectors), or a variable"""
    expr = expr.strip()
    if expr in env:
        return env[expr]
    m = re.fullmatch(r"(?:std::vector<[\w:<> ]+>)?\s*\((\{.*\})\)|std::vector<[\w:<> ]+>\s*(\{.*\})", expr, re.S)
    if m:
        expr = (m.group(1) or m.group(2)).strip()
    if expr.startswith("{") and expr.endswith("}"):
        inner = expr[1:-1].strip()
        if not inner:
            return []
        parts = split_top(inner)
        if parts[0].startswith("{"):
            return [values_nested(x, env) for x in parts]
        return [cnum(x, env) for x in parts]
    return cnum(expr, env)


def functions(text):
    """name -> (params [(type, name, default)], body) of each function"""
    out = {}
    for m in re.finditer(r"(?:template\s*<[^>]*>\s*)?(?:static\s+)?(?:void|auto)\s+(\w+)\s*\(([^)]*)\)\s*\{", text):
        start, depth, i = m.end(), 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        params = []
        for p in split_top(m.group(2)):
            pm = re.fullmatch(r"(?:const\s+)?([\w:<> ,]+?)\s*&?\s*(\w+)\s*(?:=\s*(.+))?", p.strip(), re.S)
            if pm:
                params.append((pm.group(1), pm.group(2), pm.group(3)))
        out[m.group(1)] = (params, text[start:i - 1])
    return out


def run_defs(body, env):
    """the variables a body defines with literals, into env"""
    for st in [re.sub(r"^[\s{}]+", "", x) for x in body.split(";")]:
        m = re.fullmatch(r"(?:const\s+|constexpr\s+|static\s+)*(?:std::vector<[\w:<>, ]+>|float|double|int|int64_t|int32_t|"
                         r"int8_t|uint8_t|bool|auto)\s+(\w+)\s*(?:=\s*)?(.+)", st, re.S)
        if not m:
            continue
        name, v = m.group(1), m.group(2).strip()
        if v.startswith("(") and v.endswith(")") and not v.startswith("({"):
            v = v[1:-1]
        try:
            env[name] = {"true": True, "false": False}[v] if v in ("true", "false") else values_nested(v, env)
        except (ValueError, KeyError, SyntaxError, TypeError, NameError):
            pass
    return env


def calls(body, callee):
    """(template args, argument strings) of each call of callee in body"""
    out = []
    for m in re.finditer(r"\b%s\s*(?:<([^>]*)>)?\s*\(" % re.escape(callee), body):
        i, depth = m.end(), 1
        while depth and i < len(body):
            depth += {"(": 1, ")": -1}.get(body[i], 0)
            i += 1
        out.append(([x.strip() for x in (m.group(1) or "").split(",") if x.strip()], split_top(body[m.end():i - 1])))
    return out


def tests_calling(text, callee):
    """(test name, template args, argument strings) for each call of callee in a TEST"""
    out = []
    for kind, name, params, body in blocks(text):
        if kind == "test":
            for targs, args in calls(body, callee):
                out.append((name, targs, args))
    return out


def bind(params, args, env, targs=(), tparams=()):
    """a function's parameters bound to a call's arguments (literals, or env's)"""
    e = dict(env)
    for k, tn in enumerate(tparams):
        if k < len(targs):
            e["<" + tn + ">"] = targs[k]
    for k, (ty, name, default) in enumerate(params):
        src = args[k] if k < len(args) else default
        if src is None:
            continue
        src = re.sub(r"/\*.*?\*/", "", src).strip()
        try:
            e[name] = {"true": True, "false": False}[src] if src in ("true", "false") else values_nested(src, env)
        except (ValueError, KeyError, SyntaxError, TypeError, NameError):
            e[name] = src
    return e


# ---- onnxruntime-node, for the tests whose expected values are a reference's ----

ORT_TYPES = {TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT8, TensorProto.INT32, TensorProto.INT64,
             TensorProto.BOOL, TensorProto.FLOAT16, TensorProto.DOUBLE}


def ort_version(node_dir):
    return json.load(open(os.path.join(node_dir, "node_modules/onnxruntime-node/package.json")))["version"]


def ort_outputs(node_dir, op, domain, attrs, inputs, nout, opset=1, tmp="/tmp/gen_quant_ort"):
    """onnxruntime-node's outputs (TensorProtos) of one node; the inputs
    bench/ort.js cannot feed (int16, 4-bit ...) become initializers"""
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    in_names = ["" if t is None else "input_%d" % i for i, t in enumerate(inputs)]
    while in_names and not in_names[-1]:
        in_names.pop()
    out_names = ["output_%d" % k for k in range(nout)]
    node = helper.make_node(op, in_names, out_names, domain=domain or None)
    node.attribute.extend(attrs)
    gin, init, files = [], [], []
    for n, t in zip(in_names, inputs):
        if not n:
            continue
        c = TensorProto()
        c.CopyFrom(t)
        c.name = n
        if t.data_type in ORT_TYPES and len(t.dims):
            gin.append(helper.make_tensor_value_info(n, t.data_type, list(t.dims)))
            f = os.path.join(tmp, n + ".pb")
            open(f, "wb").write(c.SerializeToString())
            files.append(f)
        else:
            init.append(c)
    graph = helper.make_graph([node], "g", gin, [helper.make_empty_tensor_value_info(n) for n in out_names],
                              initializer=init)
    imports = [helper.make_opsetid("", 17)] + ([helper.make_opsetid(domain, opset)] if domain else [])
    m = helper.make_model(graph, opset_imports=imports)
    m.ir_version = 9 if any(t is not None and t.data_type in (21, 22) for t in inputs) else 8
    onnx.save(m, os.path.join(tmp, "model.onnx"))
    env = dict(os.environ, ORT_DIR=node_dir, ORT_OUT_DIR=os.path.join(tmp, "out"))
    r = subprocess.run(["node", os.path.join(HERE, "../../bench/ort.js"), os.path.join(tmp, "model.onnx"), "1", "0"] +
                       files, env=env, capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("onnxruntime refused %s: %s" % (op, r.stderr[-800:]))
    outs = []
    for k in range(nout):
        t = TensorProto()
        t.ParseFromString(open(os.path.join(tmp, "out", "output_%d.pb" % k), "rb").read())
        outs.append(t)
    return outs


def arr(t):
    """a TensorProto's values as a flat numpy array (4-bit ones unpacked)"""
    if t.data_type in (21, 22):
        b = np.frombuffer(t.raw_data, np.uint8)
        v = np.stack([b & 15, b >> 4], 1).reshape(-1)[:int(np.prod(t.dims))].astype(np.int32)
        return np.where(v > 7, v - 16, v) if t.data_type == 22 else v
    return numpy_helper.to_array(t).reshape(-1)


# ---- ports of the tests translate() cannot read ----

I8 = {"uint8_t": (TensorProto.UINT8, np.uint8, 0, 255), "int8_t": (TensorProto.INT8, np.int8, -128, 127)}


def q8(x, scale, zp, ty):
    """MlasQuantizeLinear: x / scale in float, to nearest even, + zp, saturated"""
    lo, hi = I8[ty][2], I8[ty][3]
    v = np.rint(np.float32(x) / np.float32(scale)).astype(np.float64) + zp
    return np.clip(v, lo, hi).astype(np.int64)


def src_lit(f, test, extra=""):
    return ("Expected outputs from onnxruntime's onnxruntime/test/contrib_ops/%s at %s: TEST %s, its literal inputs "
            "and outputs%s." % (f, ORT_COMMIT, test, extra))


def src_ort(f, test, node_dir, what, atol, rtol, why):
    return ("The configuration of onnxruntime's onnxruntime/test/contrib_ops/%s at %s, TEST %s: %s; the inputs drawn "
            "here (seeded), as the test draws its own at random, and the expected outputs computed by "
            "onnxruntime-node %s (CPU, one thread, graph optimisation off), the CPU kernel that test checks against "
            "its reference. Tolerance atol %g, rtol %g: %s." % (f, ORT_COMMIT, test, what, ort_version(node_dir),
                                                               atol, rtol, why))


def test_name(name):
    return snake(name.split(".")[-1])


def port_concat(ort_dir):
    f = "qlinear_concat_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    fns = functions(text)
    made = []
    for data_fn in ("QLinearConcat3InputsU8", "QLinearConcat3InputsS8", "QLinearConcatOneInputS8"):
        for tname, _, args in tests_calling(text, data_fn):
            if len(args) > 1:  # a failure cause: tests/bad has those
                continue
            params, body = fns[data_fn]
            env = run_defs(body, bind(params, args, {}))
            for k, (targs, cargs) in enumerate(calls(body, "RunQLinearConcat")):
                e = bind(fns["RunQLinearConcat"][0], cargs, env)
                ty = targs[0]
                tt = I8[ty][0]
                ins = [tensor("y_scale", TensorProto.FLOAT, [], [e["y_scale"]]),
                       tensor("y_zero_point", tt, [], [e["y_zero_point"]])]
                inits = []
                for i, (shape, v) in enumerate(zip(e["x_shapes"], e["x_vecs"])):
                    ins.append(tensor("X%d" % i, tt, shape, v))
                    if e["is_const_inputs"][i]:
                        inits += [len(ins), len(ins) + 1]
                    ins.append(tensor("x_scale%d" % i, TensorProto.FLOAT, [], [e["x_scales"][i]]))
                    ins.append(tensor("x_zero_point%d" % i, tt, [], [e["x_zero_points"][i]]))
                out = tensor("Y", tt, e["y_shape"], e["y_vec"])
                name = "msq_qlinear_concat_%s_%s_%d" % (snake(tname.split(".")[0][-2:]), test_name(tname), k)
                if name in made:
                    name += "_%d" % len(made)
                made.append(write_case(name, "QLinearConcat", MS,
                                       [helper.make_attribute("axis", int(e["possible_neg_concat_axis"]))], ins, [out],
                                       src_lit(f, tname, " (%s, call %d of %s; the inputs it makes initializers are "
                                               "initializers here)" % (data_fn, k + 1, data_fn)), 0, 0, inits=inits))
    return made


def port_softmax(ort_dir):
    """the QLinearSoftmax TESTs of qlinear_lookup_table_test.cc (their data
    repeated along dims[0] by a loop)"""
    f = "qlinear_lookup_table_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    made = []
    for kind, name, params, body in blocks(text):
        if kind != "test" or "QLinearSoftmax" not in name:
            continue
        env = {}
        for st in [x.strip() for x in body.split(";")]:
            m = re.fullmatch(r"auto\s+(\w+)\s*=\s*std::vector<(\w+)>(\{.*\})", st, re.S)
            if m:
                env[m.group(1)] = values(m.group(3), env)
                env["<ty>"] = m.group(2)
        run_defs(body, env)
        ax = int(re.search(r'AddAttribute<int64_t>\("axis",\s*(-?\d+)\)', body).group(1))
        opset = int(re.search(r'AddAttribute<int64_t>\("opset",\s*(\d+)\)', body).group(1))
        dims, x, y = env["dims"], list(env["x_in"]), list(env["y_out"])
        if "for (int64_t i = 1; i < dims[0]" in body:
            n = dims[1] * dims[2]
            for i in range(1, dims[0]):
                x += x[:n]
                y += y[:n]
        ty = env["<ty>"]
        tt = I8[ty][0]
        ins = [tensor("X", tt, dims, x), tensor("X_scale", TensorProto.FLOAT, [], [env["X_scale"]]),
               tensor("X_zero_point", tt, [], [env["X_zero_point"]]),
               tensor("Y_scale", TensorProto.FLOAT, [], [env["Y_scale"]]),
               tensor("Y_zero_point", tt, [], [env["Y_zero_point"]])]
        attrs = [helper.make_attribute("axis", ax), helper.make_attribute("opset", opset)]
        made.append(write_case("msq_qlinear_softmax_" + test_name(name).replace("q_linear_softmax_", ""), "QLinearSoftmax",
                               MS, attrs, ins, [tensor("Y", tt, dims, y)],
                               src_lit(f, name, " (the data repeated along dims[0] as the test's loop does)"), 0, 0))
    return made


def port_global_pool(ort_dir, node_dir):
    f = "qlinear_global_average_pool_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    made = []
    rng = np.random.RandomState(31)
    for tname, targs, args in tests_calling(text, "RunQLinearGlobalAveragePool"):
        ty = targs[0] if targs else "uint8_t"
        cl, b, ch, h, w, xz, xs, yz, ys = [values_nested(a, {"true": 1, "false": 0}) if a not in ("true", "false")
                                           else a == "true" for a in args[:9]]
        tt, npt, lo, hi = I8[ty]
        dims = [b, h, w, ch] if cl else [b, ch, h, w]
        x = rng.randint(lo, hi + 1, dims)
        ins = [tensor("X", tt, dims, x.reshape(-1)), tensor("x_scale", TensorProto.FLOAT, [], [xs]),
               tensor("x_zero_point", tt, [], [xz]), tensor("y_scale", TensorProto.FLOAT, [], [ys]),
               tensor("y_zero_point", tt, [], [yz])]
        attrs = [helper.make_attribute("channels_last", 1 if cl else 0)]
        out = ort_outputs(node_dir, "QLinearGlobalAveragePool", MS, attrs, ins, 1)[0]
        # the test's own reference (CalculateGlobalAvgPool), which it allows 1 off
        xv = x.transpose(0, 3, 1, 2) if cl else x
        s = xv.reshape(b, ch, -1).sum(-1) - xz * h * w
        ref = np.clip(np.rint(np.float32(xs) * s.astype(np.float32) / np.float32(h * w) / np.float32(ys)) + yz, lo, hi)
        got = arr(out).reshape(b, ch) if not cl else arr(out).reshape(b, ch)
        assert np.abs(got - ref).max() <= 1, tname
        made.append(write_case("msq_qlinear_global_average_pool_" + test_name(tname), "QLinearGlobalAveragePool", MS,
                               attrs, ins, [out], src_ort(f, tname, node_dir, "%s, channels_last %d, x (%s)" %
                                                          (ty, cl, ", ".join(map(str, dims))), 0, 0,
                                                          "integers exactly; the test's reference, which it allows "
                                                          "to differ by 1, is within 1 of these"), 0, 0))
    return made


def port_pool(ort_dir, node_dir):
    f = "qlinear_pool_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    made = []
    rng = np.random.RandomState(37)
    for fn in ("RunQLinearAveragePoolNchw", "RunQLinearAveragePoolNhwc"):
        for tname, targs, args in tests_calling(text, fn):
            ty = targs[0] if targs else "uint8_t"
            tt, npt, lo, hi = I8[ty]
            xd, yd, ks, st, pads = [values_nested(a, {}) for a in args[:5]]
            cip = int(values_nested(args[5], {})) if len(args) > 5 else 0
            xzp = (lo + hi - 5) // 2 if ty == "uint8_t" else int((lo + hi - 5) / 2)
            for same in (0, 1):
                yzp = xzp if same else ((lo + hi + 10) // 2 if ty == "uint8_t" else int((lo + hi + 10) / 2))
                xf = rng.uniform(-0.5, 0.5, xd).astype(np.float32)
                x = q8(xf, np.float32(1 / 255.0), xzp, ty)
                nhwc = fn.endswith("Nhwc")
                xin = x.transpose([0] + list(range(2, len(xd))) + [1]) if nhwc else x
                ins = [tensor("X", tt, list(xin.shape), xin.reshape(-1)),
                       tensor("x_scale", TensorProto.FLOAT, [], [np.float32(1 / 255.0)]),
                       tensor("x_zero_point", tt, [], [xzp]),
                       tensor("y_scale", TensorProto.FLOAT, [], [np.float32(1 / 255.0)]),
                       tensor("y_zero_point", tt, [], [yzp])]
                attrs = [helper.make_attribute("auto_pad", ""), helper.make_attribute("strides", st),
                         helper.make_attribute("pads", pads), helper.make_attribute("kernel_shape", ks),
                         helper.make_attribute("count_include_pad", cip)]
                if nhwc:
                    attrs.append(helper.make_attribute("channels_last", 1))
                out = ort_outputs(node_dir, "QLinearAveragePool", MS, attrs, ins, 1)[0]
                want = list(yd) if not nhwc else [yd[0]] + list(yd[2:]) + [yd[1]]
                assert list(out.dims) == want, (tname, out.dims, want)
                made.append(write_case("msq_qlinear_average_pool_%s_%s" % (test_name(tname), "same_zp" if same else "zp"),
                                       "QLinearAveragePool", MS, attrs, ins, [out],
                                       src_ort(f, tname, node_dir, "%s, x (%s), kernel %s, strides %s, pads %s, "
                                               "count_include_pad %d, y's zero point %s x's" %
                                               (ty, ", ".join(map(str, xd)), ks, st, pads, cip,
                                                "equal to" if same else "other than"), 0, 0,
                                               "integers exactly (the test allows 1 off its reference)"), 0, 0))
    return made


def port_qgemm(ort_dir, node_dir):
    f = "quant_gemm_test.cc"
    made = []
    rng = np.random.RandomState(123)
    batches = {"Scalar": [(1, 1, 32), (1, 1, 260)], "GEMV": [(1, 2, 16), (1, 8, 68), (1, 512, 1024)],
               "GEMM": [(2, 2, 40), (2, 48, 33), (2, 51, 40), (4, 8, 68)]}
    # RunQuantGemmTestBatch's eight forms: (transA, transB, has_C, B initializer, per_column)
    forms = [(0, 0, 0, 0, 0), (0, 0, 1, 1, 1), (1, 0, 0, 1, 0), (1, 0, 1, 0, 1), (0, 1, 0, 0, 0), (0, 1, 1, 1, 1),
             (1, 1, 0, 1, 1), (1, 1, 1, 0, 0)]
    types = [("uint8_t", "int8_t", "float"), ("uint8_t", "int8_t", "uint8_t"), ("uint8_t", "uint8_t", "float"),
             ("uint8_t", "uint8_t", "uint8_t"), ("int8_t", "int8_t", "float"), ("int8_t", "int8_t", "int8_t")]
    k = 0
    for test, shapes in batches.items():
        for (M, N, K) in shapes:
            for fi, (ta, tb, hc, binit, pc) in enumerate(forms):
                if N * K > 100000 and fi not in (0, 5):
                    continue  # a large product: two of its forms, to keep the cases small
                at, bt, ot = types[k % len(types)]
                k += 1
                A = rng.randint(I8[at][2], I8[at][3] + 1, (M, K))
                adj = 2 if bt == "int8_t" else 1
                B = rng.randint(I8[bt][2] // adj, I8[bt][3] // adj + 1, (K, N))
                az = (A.min() + A.max()) // 2 if at == "uint8_t" else int((A.min() + A.max()) / 2)
                bz = (B.min() + B.max()) // 2 if bt == "uint8_t" else int((B.min() + B.max()) / 2)
                bzs = [bz + (1 if i % 2 == 0 else -1) for i in range(N)] if pc else [bz]
                bss = rng.uniform(0.003, 0.004, N if pc else 1).astype(np.float32)
                a_s = np.float32(rng.uniform(0.003, 0.004))
                alpha = float(np.float32(rng.uniform(1, 2)))
                C = rng.randint(I8[at][2], I8[at][3] + 1, (M, N))
                Ai = A.T if ta else A
                Bi = B.T if tb else B
                ins = [tensor("A", I8[at][0], list(Ai.shape), Ai.reshape(-1)), tensor("a_scale", 1, [], [a_s]),
                       tensor("a_zero_point", I8[at][0], [], [az]),
                       tensor("B", I8[bt][0], list(Bi.shape), Bi.reshape(-1)),
                       tensor("b_scale", 1, [len(bss)], bss), tensor("b_zero_point", I8[bt][0], [len(bzs)], bzs),
                       tensor("C", TensorProto.INT32, [M, N], C.reshape(-1)) if hc else None]
                if ot != "float":  # y's parameters from the float result, as quantization::QuantizeLinear
                    acc = (A - az) @ (B - np.array(bzs)) + (C if hc else 0)
                    yf = alpha * a_s * (bss * acc)
                    lo = -127 if ot == "int8_t" else 0
                    hi = 127 if ot == "int8_t" else 255
                    mn, mx = min(yf.min(), 0), max(yf.max(), 0)
                    ysc = np.float32((mx - mn) / (hi - lo))
                    yz = int(np.clip(round(lo - mn / ysc), lo, hi))
                    ins += [tensor("y_scale", 1, [], [ysc]), tensor("y_zero_point", I8[ot][0], [], [yz])]
                attrs = [helper.make_attribute("transA", ta), helper.make_attribute("transB", tb),
                         helper.make_attribute("alpha", alpha)]
                out = ort_outputs(node_dir, "QGemm", MS, attrs, ins, 1)[0]
                atol, rtol = TOL["float"] if ot == "float" else (0, 0)
                made.append(write_case("msq_qgemm_%s_%dx%dx%d_%d" % (test.lower(), M, N, K, fi), "QGemm", MS, attrs,
                                       ins, [out], src_ort(f, "QuantGemmTest." + test, node_dir,
                                                           "M %d, N %d, K %d, A %s, B %s, Y %s, transA %d, transB %d, "
                                                           "C %s, b's scale and zero point %s" %
                                                           (M, N, K, at, bt, ot, ta, tb, "given" if hc else "none",
                                                            "per column" if pc else "per tensor"), atol, rtol,
                                                           TOL_WHY if ot == "float" else "integers, exactly"),
                                       atol, rtol, inits=[3] if binit else []))
    return made


def pack_bits(q, bits):
    """values (rows, n) of `bits` bits -> bytes, k order, low bits first"""
    per = 8 // bits
    rows, n = q.shape
    q = np.concatenate([q, np.zeros((rows, (-n) % per), q.dtype)], 1).reshape(rows, -1, per)
    out = np.zeros(q.shape[:2], np.int64)
    for t in range(per):
        out |= (q[:, :, t].astype(np.int64) & ((1 << bits) - 1)) << (t * bits)
    return out.astype(np.uint8)


def blockwise(w, bits, bs, with_zp, rng):
    """W (N, K) quantized by blocks along K as MLAS's quantizer does it, near
    enough: (q (N, kb*bs), scales (N, kb), zero points (N, kb) or None)"""
    N, K = w.shape
    kb = (K + bs - 1) // bs
    wp = np.zeros((N, kb * bs), np.float32)
    wp[:, :K] = w
    blocks = wp.reshape(N, kb, bs)
    qmax = (1 << bits) - 1
    if with_zp:
        lo = np.minimum(blocks.min(2), 0)
        hi = np.maximum(blocks.max(2), 0)
        sc = ((hi - lo) / qmax).astype(np.float32)
        sc[sc == 0] = 1
        zp = np.clip(np.rint(-lo / sc), 0, qmax).astype(np.int64)
    else:
        sc = (np.abs(blocks).max(2) / (1 << (bits - 1))).astype(np.float32)
        sc[sc == 0] = 1
        zp = None
    z = zp if zp is not None else np.full(sc.shape, 1 << (bits - 1))
    q = np.clip(np.rint(blocks / sc[:, :, None]) + z[:, :, None], 0, qmax).astype(np.int64)
    q[:, -1, bs - (kb * bs - K):] = 0 if kb * bs > K else q[:, -1, bs - (kb * bs - K):]
    return q.reshape(N, -1), sc, zp


def nbits_node(M, N, K, bs, bits, acc, variant, dtype, rng, legacy=False):
    """inputs and attributes of one MatMulNBits test; variant: "", "zp", "zpf",
    "gidx", "gidx_bias", "bias", "zp_bias" """
    A = (rng.normal(0, 0.25, (M, K))).astype(np.float32)
    W = (rng.normal(0, 0.25, (N, K))).astype(np.float32)
    q, sc, zp = blockwise(W, bits, bs, "zp" in variant, rng)
    kb = sc.shape[1]
    B = pack_bits(q, bits).reshape(N, kb, bs * bits // 8)
    ft = TensorProto.FLOAT16 if dtype == "MLFloat16" else TensorProto.FLOAT
    cast = (lambda a: a.astype(np.float16)) if dtype == "MLFloat16" else (lambda a: a.astype(np.float32))
    shp = [N * kb] if legacy else [N, kb]
    ins = [tensor("A", ft, [M, K], cast(A).reshape(-1)), tensor("B", TensorProto.UINT8, list(B.shape), B.reshape(-1)),
           tensor("scales", ft, shp, cast(sc).reshape(-1))]
    zq = None
    if variant.startswith("zpf"):
        ins.append(tensor("zero_points", ft, shp, cast(zp.astype(np.float32)).reshape(-1)))
    elif variant.startswith("zp"):
        zq = pack_bits(zp, bits)
        ins.append(tensor("zero_points", TensorProto.UINT8, [N * zq.shape[1]] if legacy else list(zq.shape),
                          zq.reshape(-1)))
    else:
        ins.append(None)
    if "gidx" in variant:
        ins.append(tensor("g_idx", TensorProto.INT32, [kb * bs], [i // bs for i in range(kb * bs)]))
    else:
        ins.append(None)
    bias = rng.uniform(1, 5, N).astype(np.float32) if "bias" in variant else None
    ins.append(None if bias is None else tensor("bias", ft, [N], cast(bias)))
    attrs = [helper.make_attribute(k, v) for k, v in (("K", K), ("N", N), ("block_size", bs), ("bits", bits),
                                                      ("accuracy_level", acc))]
    # the test's reference: A times the dequantized W (in float64 here)
    z = zp if zp is not None else np.full(sc.shape, 1 << (bits - 1))
    Wd = ((q.reshape(N, kb, bs) - z[:, :, None]) * sc[:, :, None].astype(np.float64)).reshape(N, -1)[:, :K]
    ref = cast(A).astype(np.float64) @ cast(Wd.astype(np.float32)).astype(np.float64).T + (0 if bias is None else cast(bias))
    return ins, attrs, ref


def port_nbits(ort_dir, node_dir):
    made = []
    rng = np.random.RandomState(1234)
    f4, f8 = "matmul_4bits_test.cc", "matmul_8bits_test.cc"
    shapes4 = [(1, 1, 16, 16), (1, 32, 16, 128), (1, 288, 93, 32), (1, 32, 1234, 16), (2, 2, 16, 16),
               (100, 32, 32, 16), (100, 288, 93, 32), (16, 40, 200, 64)]
    variants = ["", "zp", "gidx", "gidx_bias", "zpf"]
    for (M, N, K, bs) in shapes4:
        for acc, test in ((0, "Float32_4b_Accuracy0"), (4, "Float32_4b_Accuracy4")):
            for v in variants if acc == 0 else ["", "zp"]:
                ins, attrs, ref = nbits_node(M, N, K, bs, 4, acc, v, "float", rng)
                out = ort_outputs(node_dir, "MatMulNBits", MS, attrs, ins, 1)[0]
                atol, rtol = (1e-5, 1e-4) if acc == 0 else (0.1, 0.02)
                if acc == 0 and v == "gidx_bias":
                    atol = 1e-4  # the test's: a CI failure at 1.04e-5 (see matmul_4bits_test.cc)
                got = arr(out).reshape(M, N)
                assert np.all(np.abs(got - ref) <= atol + rtol * np.abs(ref) + 2e-5), (M, N, K, bs, v)
                name = "msq_matmul_nbits_4b_%dx%dx%d_b%d_acc%d%s" % (M, N, K, bs, acc, "_" + v if v else "")
                what = ("M %d, N %d, K %d, block_size %d, accuracy_level %d, %s" %
                        (M, N, K, bs, acc, {"": "no zero points", "zp": "packed 4-bit zero points",
                                            "zpf": "float zero points", "gidx": "g_idx",
                                            "gidx_bias": "g_idx and bias"}[v]))
                if acc == 4:  # onnxop ignores accuracy_level: the test's reference, at its tolerance
                    exp = tensor("Y", TensorProto.FLOAT, [M, N], ref.reshape(-1).astype(np.float32))
                    src = ("The configuration of onnxruntime's onnxruntime/test/contrib_ops/%s at %s, TEST %s: %s; "
                           "inputs drawn here (seeded) as the test draws its own (A and W normal, sigma 0.25, W "
                           "quantized by blocks); the expected values are the test's reference (A times the "
                           "dequantized W), at the test's tolerance atol 0.1, rtol 0.02 for accuracy_level 4, which "
                           "lets onnxruntime quantize A to 8 bits; onnxop computes in float at every level. "
                           "onnxruntime-node %s is within that tolerance too." % (f4, ORT_COMMIT, test, what,
                                                                                 ort_version(node_dir)))
                    made.append(write_case(name, "MatMulNBits", MS, attrs, ins, [exp], src, atol, rtol, inits=[1, 2, 3, 4]))
                else:
                    made.append(write_case(name, "MatMulNBits", MS, attrs, ins, [out],
                                           src_ort(f4, "MatMulNBits." + test, node_dir, what, atol, rtol,
                                                   "the test's (OpTester's defaults; 1e-4 absolute for g_idx with bias, "
                                                   "as the test has it)"),
                                           atol, rtol, inits=[1, 2, 3, 4]))
    for (M, N, K, bs) in [(1, 288, 93, 32), (100, 32, 16, 16)]:  # Float16_4b_Accuracy0
        for v in ("", "zp"):
            ins, attrs, ref = nbits_node(M, N, K, bs, 4, 0, v, "MLFloat16", rng)
            out = ort_outputs(node_dir, "MatMulNBits", MS, attrs, ins, 1)[0]
            made.append(write_case("msq_matmul_nbits_4b_f16_%dx%dx%d_b%d%s" % (M, N, K, bs, "_" + v if v else ""),
                                   "MatMulNBits", MS, attrs, ins, [out],
                                   src_ort(f4, "MatMulNBits.Float16_4b_Accuracy0", node_dir,
                                           "float16, M %d, N %d, K %d, block_size %d%s" %
                                           (M, N, K, bs, ", packed zero points" if v else ""), 0.055, 0.02,
                                           "the test's for float16"), 0.055, 0.02, inits=[1, 2, 3, 4]))
    # legacy 1-D scales and zero points (TestMatMulNBitsTyped<..., legacy_shape = true>)
    ins, attrs, ref = nbits_node(1, 32, 64, 16, 4, 0, "zp", "float", rng, legacy=True)
    out = ort_outputs(node_dir, "MatMulNBits", MS, attrs, ins, 1)[0]
    made.append(write_case("msq_matmul_nbits_4b_legacy_shape", "MatMulNBits", MS, attrs, ins, [out],
                           src_ort(f4, "MatMulNBits.LegacyShape", node_dir, "M 1, N 32, K 64, block_size 16, scales "
                                   "(N * k_blocks) and zero points (N * blob) 1-D, as older models have them",
                                   1e-5, 1e-4, TOL_WHY), 1e-5, 1e-4, inits=[1, 2, 3, 4]))
    # 8 bits: accuracy_level 4, the test's reference and tolerance
    for (M, N, K, bs) in [(1, 8, 16, 16), (2, 4, 32, 16), (1, 40, 576, 32), (100, 32, 16, 128), (32, 64, 260, 32)]:
        for v in ("", "zp", "bias", "zp_bias"):
            ins, attrs, ref = nbits_node(M, N, K, bs, 8, 4, v, "float", rng)
            out = ort_outputs(node_dir, "MatMulNBits", MS, attrs, ins, 1)[0]
            got = arr(out).reshape(M, N)
            assert np.all(np.abs(got - ref) <= 0.1 + 0.02 * np.abs(ref)), (M, N, K, bs, v)
            exp = tensor("Y", TensorProto.FLOAT, [M, N], ref.reshape(-1).astype(np.float32))
            src = ("The configuration of onnxruntime's onnxruntime/test/contrib_ops/%s at %s, TEST "
                   "MatMulNBits.Float32_8b_AccuracyLevel4: M %d, N %d, K %d, block_size %d, 8 bits, %s; inputs drawn "
                   "here (seeded) as the test draws its own; the expected values are the test's reference (A times "
                   "the dequantized W) at its tolerance atol 0.1, rtol 0.02 (accuracy_level 4: onnxruntime may "
                   "quantize A to 8 bits; onnxop computes in float). onnxruntime-node %s is within it too." %
                   (f8, ORT_COMMIT, M, N, K, bs, {"": "no zero points", "zp": "zero points", "bias": "bias",
                                                  "zp_bias": "zero points and bias"}[v], ort_version(node_dir)))
            made.append(write_case("msq_matmul_nbits_8b_%dx%dx%d_b%d%s" % (M, N, K, bs, "_" + v if v else ""),
                                   "MatMulNBits", MS, attrs, ins, [exp], src, 0.1, 0.02, inits=[1, 2, 3, 4]))
    # 2 bits (the kernel takes them; onnxruntime's tests have none): onnxruntime-node's outputs
    for v in ("", "zp"):
        ins, attrs, ref = nbits_node(3, 24, 80, 32, 2, 0, v, "float", rng)
        out = ort_outputs(node_dir, "MatMulNBits", MS, attrs, ins, 1)[0]
        made.append(write_case("msq_matmul_nbits_2b%s" % ("_" + v if v else ""), "MatMulNBits", MS, attrs, ins, [out],
                               "Expected outputs computed by onnxruntime-node %s (CPU, one thread, graph optimisation "
                               "off): MatMulNBits with bits 2, M 3, N 24, K 80, block_size 32%s, inputs drawn here "
                               "(seeded; onnxruntime's tests have no 2-bit case). Tolerance atol 1e-5, rtol 1e-4: %s."
                               % (ort_version(node_dir), ", 2-bit zero points" if v else "", TOL_WHY),
                               1e-5, 1e-4, inits=[1, 2, 3, 4]))
    return made


def hand_nbits():
    """what onnxruntime-node does not compute as its schema and source say:
    packed zero points with a reordering g_idx (onnxruntime-node 1.31.1 uses
    the default zero point 8 then), and float zero points with 8 bits (its
    CPU kernel refuses them): the documentation's formula, in float64 here"""
    made = []
    rng = np.random.RandomState(77)
    M, N, K, bs = 2, 12, 64, 16
    kb = K // bs
    A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
    for bits, zpf in ((4, False), (8, True)):
        q = rng.randint(0, 1 << bits, (N, K))
        sc = rng.uniform(0.01, 0.1, (N, kb)).astype(np.float32)
        zp = rng.randint(0, 1 << bits, (N, kb))
        g = np.array([i // bs for i in range(K)], np.int32)
        rng.shuffle(g)
        B = pack_bits(q, bits).reshape(N, kb, bs * bits // 8)
        ins = [tensor("A", 1, [M, K], A.reshape(-1)), tensor("B", 2, list(B.shape), B.reshape(-1)),
               tensor("scales", 1, [N, kb], sc.reshape(-1))]
        if zpf:
            zf = (zp + rng.uniform(-0.5, 0.5, zp.shape)).astype(np.float32)
            ins.append(tensor("zero_points", 1, [N, kb], zf.reshape(-1)))
            blk, z = np.arange(K) // bs, zf.astype(np.float64)
            ins.append(None)
        else:
            zq = pack_bits(zp, bits)
            ins.append(tensor("zero_points", 2, list(zq.shape), zq.reshape(-1)))
            ins.append(tensor("g_idx", TensorProto.INT32, [K], g))
            blk, z = g, zp.astype(np.float64)
        W = (q - z[:, blk]) * sc.astype(np.float64)[:, blk]
        ref = A.astype(np.float64) @ W.T
        attrs = [helper.make_attribute(k, v) for k, v in (("K", K), ("N", N), ("block_size", bs), ("bits", bits))]
        note = ("float zero points (not integers) with 8 bits, which onnxruntime's CPU kernel refuses (its unpacked "
                "path takes float zero points with 4 bits only)" if zpf else
                "packed 4-bit zero points with a g_idx that reorders the blocks, for which onnxruntime-node 1.31.1 "
                "gives the result of the default zero point 8 (its source at %s reads them; its tests never combine "
                "the two)" % ORT_COMMIT)
        made.append(write_case("msq_matmul_nbits_%s" % ("8b_float_zero_points" if zpf else "4b_g_idx_reordered_zp"),
                               "MatMulNBits", MS, attrs, ins, [tensor("Y", 1, [M, N], ref.reshape(-1).astype(np.float32))],
                               "Expected output by the documented formula (docs/ContribOperators.md at %s: "
                               "Y = A (dequantized B)^T, dequantized = (q - zero point) * scale per block, the block "
                               "of k given by g_idx), computed in float64 by tests/cases/gen_quant.py: %s. Tolerance "
                               "atol 1e-5, rtol 1e-4 (OpTester's float defaults)." % (ORT_COMMIT, note), 1e-5, 1e-4))
    return made


def port_gather(ort_dir):
    """RunUnpackedData's conventions: uint4 values and zero points are the test's
    plus 8, int4 as they are; uint8 ones plus 8 (4 bits, two a byte by rows) or
    plus 128 (8 bits)"""
    f = "gather_block_quantized_op_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    fns = functions(text)
    made, seen = [], set()
    for kind, tname, params, tbody in blocks(text):
        if kind != "test":
            continue
        for fname in [n for n in fns if n.startswith("Test_") and re.search(r"\b%s\s*<" % n, tbody)]:
            if "Fail" in fname or "Mismatch" in fname or "Invalid" in fname:
                continue  # refusals: tests/bad
            fparams, fbody = fns[fname]
            for targs, args in calls(tbody, fname):
                t1, t2, tind = targs
                env = run_defs(fbody, bind(fparams, args, {}))
                for k, (_, rargs) in enumerate(calls(fbody, "RunUnpackedData")):
                    e = bind(fns["RunUnpackedData"][0], rargs, env)
                    if not e.get("expect_success", True) or t1 not in ("UInt4x2", "Int4x2", "uint8_t"):
                        continue
                    bits = int(e["bits"])
                    data, dshape = list(e["data"] if "data" in e else e["unpacked_data"]), list(e["unpacked_data_shape"])
                    zps, sshape = list(e["zero_points"]), list(e["scales_shape"])
                    if t1 == "uint8_t":
                        off = 8 if bits == 4 else 128
                        def pack(v, shape):
                            cols = shape[-1]
                            rows = int(np.prod(shape)) // cols
                            a = np.array(v).reshape(rows, cols) + off
                            if bits == 8:
                                return a.reshape(-1), list(shape)
                            a = np.concatenate([a, np.zeros((rows, cols % 2), int)], 1).reshape(rows, -1, 2) & 15
                            return (a[:, :, 0] | (a[:, :, 1] << 4)).reshape(-1), list(shape[:-1]) + [(cols + 1) // 2]
                        dv, dsh = pack(data, dshape)
                        din = tensor("data", TensorProto.UINT8, dsh, dv)
                        zin = None
                        if zps:
                            zv, zsh = pack(zps, sshape)
                            zin = tensor("zero_points", TensorProto.UINT8, zsh, zv)
                    else:
                        off = 8 if t1 == "UInt4x2" else 0
                        tt = 21 if t1 == "UInt4x2" else 22
                        din = tensor("data", tt, dshape, [v + off for v in data])
                        zin = tensor("zero_points", tt, sshape, [v + off for v in zps]) if zps else None
                    ft = TensorProto.FLOAT16 if t2 == "MLFloat16" else TensorProto.FLOAT
                    it = TensorProto.INT64 if tind == "int64_t" else TensorProto.INT32
                    ins = [din, tensor("indices", it, list(e["indices_shape"]), e["indices"]),
                           tensor("scales", ft, sshape, e["scales"]), zin]
                    attrs = [helper.make_attribute(a, int(e[a])) for a in ("gather_axis", "quantize_axis", "block_size",
                                                                            "bits")]
                    out = tensor("output", ft, list(e["output_shape"]), e["output"])
                    name = "msq_gather_block_quantized_%s_%s_%s_%s_%d" % (
                        snake(fname[5:]), {"UInt4x2": "u4", "Int4x2": "i4", "uint8_t": "u8"}[t1] + str(bits),
                        "f16" if t2 == "MLFloat16" else "f32", tind[:5], k)
                    if name in seen:
                        continue
                    seen.add(name)
                    atol, rtol = TOL["MLFloat16" if t2 == "MLFloat16" else "float"]
                    made.append(write_case(name, "GatherBlockQuantized", MS, attrs, ins, [out],
                                           src_lit(f, tname, " (%s<%s, %s, %s>, call %d of RunUnpackedData, its data "
                                                   "packed as RunUnpackedData packs it). Tolerance atol %g, rtol %g: %s"
                                                   % (fname, t1, t2, tind, k + 1, atol, rtol, TOL_WHY)),
                                           atol, rtol))
    return made


def port_dqmm(ort_dir, node_dir):
    f = "dynamic_quantize_matmul_test.cc"
    made = []
    rng = np.random.RandomState(1668426375 % (2 ** 31))
    M, N, K = 4, 128, 128
    for ty in ("int8_t", "uint8_t"):
        tt, npt, lo, hi = I8[ty]
        for bconst in (0, 1):
            for pc in (0, 1):
                for zp in (0, 1):
                    for bias in (0, 1):
                        if bconst and (pc + zp + bias) % 2:
                            continue  # half of the B-constant forms: the product is the same
                        A = rng.uniform(-1, 1, (M, K)).astype(np.float32)
                        B = rng.randint(lo // 2 if ty == "int8_t" else 0, hi // 2 + 1, (K, N))
                        n = N if pc else 1
                        bs = rng.uniform(-0.1, 0.1, n).astype(np.float32)
                        bz = rng.randint(lo, hi + 1, n)
                        bv = rng.uniform(-0.1, 0.1, N).astype(np.float32)
                        ins = [tensor("A", 1, [M, K], A.reshape(-1)), tensor("B", tt, [K, N], B.reshape(-1)),
                               tensor("b_scale", 1, [n], bs), tensor("b_zero_point", tt, [n], bz) if zp else None,
                               tensor("bias", 1, [N], bv) if bias else None]
                        out = ort_outputs(node_dir, "DynamicQuantizeMatMul", MS, [], ins, 1)[0]
                        what = ("B %s%s, b_scale %s, %s, %s" % (ty, " (an initializer)" if bconst else "",
                                                                "per column" if pc else "per tensor",
                                                                "b_zero_point" if zp else "no zero point",
                                                                "bias" if bias else "no bias"))
                        made.append(write_case("msq_dynamic_quantize_matmul_%s_%s%s%s%s" % (
                            ty[:-2], "const_" if bconst else "", "col" if pc else "tensor", "_zp" if zp else "",
                            "_bias" if bias else ""), "DynamicQuantizeMatMul", MS, [], ins, [out],
                            src_ort(f, "DynamicQuantizeMatMul.%s" % ("Int8" if ty == "int8_t" else "UInt8"), node_dir,
                                    "M 4, N 128, K 128, A uniform in [-1, 1], " + what, 1e-5, 0.02,
                                    "the test's rtol 0.02, OpTester's float atol"), 1e-5, 0.02,
                            inits=[1] if bconst else []))
    return made


def port_mitf(ort_dir, node_dir):
    f = "matmul_integer_to_float_test.cc"
    made = []
    rng = np.random.RandomState(17)
    M, N, K = 4, 128, 128
    for at, bt in (("int8_t", "int8_t"), ("uint8_t", "uint8_t"), ("uint8_t", "int8_t")):
        for zp in (1, 0):
            for bias in (0, 1):
                for pc in (0, 1):
                    ta, _, alo, ahi = I8[at]
                    tb, _, blo, bhi = I8[bt]
                    A = rng.randint(alo, ahi + 1, (M, K))
                    B = rng.randint(blo // 2 if bt == "int8_t" else 0, bhi // 2 + 1, (K, N))
                    n = N if pc else 1
                    ins = [tensor("A", ta, [M, K], A.reshape(-1)), tensor("B", tb, [K, N], B.reshape(-1)),
                           tensor("a_scale", 1, [1], rng.uniform(-0.1, 0.1, 1).astype(np.float32)),
                           tensor("b_scale", 1, [n], rng.uniform(-0.1, 0.1, n).astype(np.float32))]
                    ins += [tensor("a_zero_point", ta, [1], [(alo + ahi + 2) // 2 if at == "uint8_t" else 0]),
                            tensor("b_zero_point", tb, [n], rng.randint(blo, bhi + 1, n))] if zp else [None, None]
                    ins.append(tensor("bias", 1, [N], rng.uniform(-0.1, 0.1, N).astype(np.float32)) if bias else None)
                    out = ort_outputs(node_dir, "MatMulIntegerToFloat", MS, [], ins, 1)[0]
                    test = "MatMulIntegerToFloat.%s_%s_test_%s%s" % ("HasZeroPoint" if zp else "NoZeroPoint",
                                                                      "HasBias" if bias else "NoBias",
                                                                      "S8" if at == "int8_t" else "U8",
                                                                      "S8" if bt == "int8_t" else "U8")
                    made.append(write_case("msq_matmul_integer_to_float_%s%s_%s%s_%s" % (
                        at[:-2], bt[:-2], "zp" if zp else "nozp", "_bias" if bias else "", "col" if pc else "tensor"),
                        "MatMulIntegerToFloat", MS, [], ins, [out],
                        src_ort(f, test, node_dir, "M 4, N 128, K 128, b_scale %s" % ("per column" if pc else
                                                                                     "per tensor"), 0.001, 0.02,
                                "the test's"), 0.001, 0.02))
    # MatMulInteger_With_ZeroPoint: the forms its fusion makes, scales (1), b's (1), (N), (1, N), (B, 1, N)
    for ashape, wshape, sshape in (((5, 4, 3), (3, 4), (1,)), ((5, 4, 3), (3, 4), (4,)), ((5, 4, 3), (3, 4), (1, 4)),
                                   ((15, 14, 13), (15, 13, 27), (15, 1, 27))):
        A = rng.randint(0, 256, ashape)
        W = rng.randint(-64, 64, wshape)
        ins = [tensor("A", 2, list(ashape), A.reshape(-1)), tensor("B", 3, list(wshape), W.reshape(-1)),
               tensor("a_scale", 1, [1], rng.uniform(-0.1, 0, 1).astype(np.float32)),
               tensor("b_scale", 1, list(sshape), rng.uniform(-0.1, 0, int(np.prod(sshape))).astype(np.float32)),
               tensor("a_zero_point", 2, [1], rng.randint(0, 256, 1)),
               tensor("b_zero_point", 3, list(sshape), rng.randint(-64, 64, int(np.prod(sshape))))]
        out = ort_outputs(node_dir, "MatMulIntegerToFloat", MS, [], ins, 1)[0]
        made.append(write_case("msq_matmul_integer_to_float_fused_%s" % "x".join(map(str, sshape)),
                               "MatMulIntegerToFloat", MS, [], ins, [out],
                               src_ort(f, "MatMulIntegerToFloat.MatMulInteger_With_ZeroPoint", node_dir,
                                       "the node its fusion makes of MatMulInteger, Cast and two Muls: A uint8 %s, B "
                                       "int8 %s, b's scale and zero point %s" % (ashape, wshape, sshape), 1e-5, 1e-5,
                                       "the test's"), 1e-5, 1e-5, inits=[1]))
    return made


def port_binary(ort_dir, node_dir):
    """RunQLinearMathTestFromFloat: its float vectors quantized, the expected
    values the test's formula (dequantize, op in float, divide by C's scale,
    to nearest even, + C's zero point, clamp), which onnxruntime's kernel
    matches exactly on these data (checked here)"""
    f = "qlinear_binary_op_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    glob = {}
    run_defs(text.split("TEST(")[0], glob)
    made = []
    for kind, tname, params, body in blocks(text):
        if kind != "test":
            continue
        env = dict(glob)
        for st in [x.strip() for x in body.split(";")]:
            m = re.fullmatch(r"const std::vector<float>&\s*(\w+)\((\w+)\)", st)
            if m:
                env[m.group(1)] = env[m.group(2)]
        run_defs(body, env)
        for st in [x.strip() for x in body.split(";")]:
            m = re.fullmatch(r"quantization::Params<(\w+)>\s*(\w+)\((\w+),\s*(-?\d+)\)", st)
            if m:
                env[m.group(2)] = (np.float32(env[m.group(3)]), int(m.group(4)))
                env["<ty>"] = m.group(1)
        for _, args in calls(body, "RunQLinearMathTestFromFloat"):
            op = args[0].strip('"')
            a, ashape, ap, b, bshape, bp, cp = [env.get(x.strip()) if x.strip() in env else values_nested(x, env)
                                                for x in args[2:9]]
            ty = env["<ty>"]
            tt, npt, lo, hi = I8[ty]
            qa, qb = q8(np.array(a, np.float32), ap[0], ap[1], ty), q8(np.array(b, np.float32), bp[0], bp[1], ty)
            nd = max(len(ashape), len(bshape))
            A = qa.reshape(ashape).reshape([1] * (nd - len(ashape)) + list(ashape))
            B = qb.reshape(bshape).reshape([1] * (nd - len(bshape)) + list(bshape))
            da = ((A - ap[1]).astype(np.float32) * np.float32(ap[0])).astype(np.float32)
            db = ((B - bp[1]).astype(np.float32) * np.float32(bp[0])).astype(np.float32)
            v = (da + db) if op == "QLinearAdd" else (da * db)
            C = np.clip(np.rint(v.astype(np.float32) / np.float32(cp[0])).astype(np.int64) + cp[1], lo, hi)
            ins = [tensor("A", tt, list(ashape), qa), tensor("A_scale", 1, [], [ap[0]]),
                   tensor("A_zero_point", tt, [], [ap[1]]), tensor("B", tt, list(bshape), qb),
                   tensor("B_scale", 1, [], [bp[0]]), tensor("B_zero_point", tt, [], [bp[1]]),
                   tensor("C_scale", 1, [], [cp[0]]), tensor("C_zero_point", tt, [], [cp[1]])]
            out = tensor("C", tt, list(C.shape), C.reshape(-1))
            ort = arr(ort_outputs(node_dir, op, MS, [], ins, 1)[0])
            assert np.array_equal(ort, C.reshape(-1)), tname
            made.append(write_case("msq_" + test_name(tname).replace("add_", "qlinear_add_", 1).replace("mul_", "qlinear_mul_", 1),
                                   op, MS, [], ins, [out],
                                   src_lit(f, tname, ": its float vectors quantized with its parameters (MLAS's "
                                           "quantization), the expected output the test's own formula "
                                           "(quantize(dequantize(A) op dequantize(B)) with C's parameters), which "
                                           "onnxruntime-node %s gives exactly too" % ort_version(node_dir)), 0, 0))
    return made


# ---- the fused set (msf_*) ----

def port_fused_conv(ort_dir):
    """fused_conv_test.cc: each TEST's attributes, inputs and expected values
    are literals; RunConvOp runs them in float (the CPU kernel) and float16
    (CUDA and WebGPU; onnxop takes the schema's float16 too)"""
    f = "fused_conv_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    text = re.sub(r"(?<!::)\bvector<", "std::vector<", text)
    made, seen = [], {}
    for kind, tname, params, body in blocks(text):
        if kind != "test":
            continue
        m = re.search(r"ConvOpAndTestAttributes\s+attrs\s*=\s*\{(.*?)\};", body, re.S)
        fields = split_top(m.group(1))
        def ints(x):
            return [int(v) for v in values_nested(re.sub(r"std::vector<\w+>", "", x), {})]
        auto_pad, dil, group, ks, pads, strides, act = (fields[0].strip('"'), ints(fields[1]), int(fields[2]),
                                                        ints(fields[3]), ints(fields[4]), ints(fields[5]),
                                                        fields[6].strip('"'))
        aparams = [float(v) for v in values_nested(re.sub(r"std::vector<\w+>", "", fields[7]), {})] \
            if len(fields) > 7 else []
        env = run_defs(body, {})
        (_, args), = calls(body, "RunConvOp")
        names = [x.strip() for x in args[1].strip("{}").split(",")]
        shapes = [x.strip() for x in args[2].strip("{}").split(",")]
        expected, yshape = env[args[3].strip()], env[args[4].strip()]
        attrs = [helper.make_attribute("group", group), helper.make_attribute("kernel_shape", ks),
                 helper.make_attribute("dilations", dil), helper.make_attribute("strides", strides),
                 helper.make_attribute("activation", act)]
        attrs.append(helper.make_attribute("pads", pads) if pads else helper.make_attribute("auto_pad", auto_pad))
        if aparams:
            attrs.append(helper.make_attribute("activation_params", aparams))
        key = repr((attrs, [env[n] for n in names], expected))
        if key in seen:
            continue  # Cpu_Conv2D_Bias_Z_Relu: Conv2D_Bias_Z_Relu again, for the CPU alone
        seen[key] = tname
        for ty, tt in (("float", TensorProto.FLOAT), ("MLFloat16", TensorProto.FLOAT16)):
            ins = [tensor(n, tt, env[sh], env[n]) for n, sh in zip(names, shapes)]
            atol, rtol = TOL[ty]
            made.append(write_case("msf_fused_conv_%s%s" % (test_name(tname), "_f16" if ty == "MLFloat16" else ""),
                                   "FusedConv", MS, attrs, ins, [tensor("Y", tt, yshape, expected)],
                                   src_lit(f, tname, " (RunConvOp's %s run%s). Tolerance atol %g, rtol %g: %s" %
                                           (ty, "; onnxruntime runs it on CUDA and WebGPU, its CPU kernel being "
                                            "float alone" if ty == "MLFloat16" else "", atol, rtol, TOL_WHY)),
                                   atol, rtol))
    return made


def port_fused_matmul(ort_dir):
    """fused_matmul_op_test.cc: GenerateSimpleTestCases' shapes and expected
    values (the product of 0, 1, 2 ... laid out in the logical shapes), the
    inputs transposed as the test's ProcessInputs stores them, the expected
    values times alpha as the test scales them"""
    f = "fused_matmul_op_test.cc"
    text = strip_comments(open(os.path.join(ort_dir, "onnxruntime/test/contrib_ops", f)).read())
    cases = []
    for m in re.finditer(r"test_cases\.push_back\(\s*\{\s*\"([^\"]*)\",\s*(\{[^}]*\}),\s*(\{[^}]*\}),\s*(\{[^}]*\}),"
                         r"\s*(\{[^}]*\})\}\);", text):
        cases.append((m.group(1), *[values_nested(m.group(k), {}) for k in range(2, 6)]))
    made, seen = [], set()

    def stored(dims, tr, tbt):
        v = np.arange(int(np.prod(dims)), dtype=np.float64).reshape(dims)
        r = len(dims)
        if r < 2 or (not tr and not tbt):
            return v
        if tr and not tbt:
            return np.swapaxes(v, -1, -2)
        if tbt and not tr:  # [batch, N, M] -> [N, batch, M]
            return v.transpose([r - 2] + list(range(r - 2)) + [r - 1])
        return v.transpose([r - 1] + list(range(r - 2)) + [r - 2])  # -> [M, batch, N]
    for kind, tname, params, body in blocks(text):
        if kind != "test":
            continue
        for targs, args in calls(body, "RunFusedMatMulTest"):
            ty = targs[0]
            a = [x.strip() for x in args] + ["false"] * (8 - len(args))
            b = lambda x: x == "true"
            ta, tb, tba, tbb = b(a[2]), b(a[3]), b(a[4]), b(a[5])
            alpha = float(cnum(a[6], {})) if a[6] != "false" else 1.0
            if b(a[7]):
                continue  # B an initializer: onnxruntime's packing of B; the product is the same
            for ci, (cname, d0, d1, dexp, vexp) in enumerate(cases):
                if (tba or tbb) and (len(d0) < 3 or len(d0) != len(d1)):
                    continue
                key = (ty, ta, tb, tba, tbb, alpha, ci)
                if key in seen:
                    continue
                seen.add(key)
                npt, tt = (np.float64, TensorProto.DOUBLE) if ty == "double" else (np.float32, TensorProto.FLOAT)
                A, B = stored(list(d0), ta and len(d0) > 1, tba), stored(list(d1), tb and len(d1) > 1, tbb)
                Y = (np.array(vexp, npt) * npt(alpha)).astype(npt)
                attrs = [helper.make_attribute("transA", int(ta)), helper.make_attribute("transB", int(tb)),
                         helper.make_attribute("transBatchA", int(tba)), helper.make_attribute("transBatchB", int(tbb)),
                         helper.make_attribute("alpha", alpha)]
                name = "msf_fused_matmul_%s%s%s%s%s_a%g_%d%s" % (
                    "", "ta" if ta else "", "tb" if tb else "", "_bta" if tba else "", "_btb" if tbb else "", alpha, ci,
                    "_f64" if ty == "double" else "")
                name = name.replace("__", "_").replace(".", "p")
                atol, rtol = TOL[ty]
                made.append(write_case(name, "FusedMatMul", MS, attrs,
                                       [tensor("A", tt, list(A.shape), A.reshape(-1)),
                                        tensor("B", tt, list(B.shape), B.reshape(-1))],
                                       [tensor("Y", tt, list(dexp), Y.reshape(-1))],
                                       src_lit(f, tname, " (RunFusedMatMulTest<%s>(transA %d, transB %d, transBatchA "
                                               "%d, transBatchB %d, alpha %g) on GenerateSimpleTestCases' case %d, "
                                               "\"%s\": the inputs 0, 1, 2 ... in their shapes, stored transposed as "
                                               "ProcessInputs does, the expected values the case's times alpha). "
                                               "Tolerance atol %g, rtol %g: %s" %
                                               (ty, ta, tb, tba, tbb, alpha, ci, cname, atol, rtol, TOL_WHY)),
                                       atol, rtol))
    return made


def port_fused_ort(node_dir):
    """FusedGemm (onnxruntime has no CPU test of it) with each activation
    its functors take, FusedConv with the MLAS activations its tests leave
    out and other windows, TransposeMatMul: inputs drawn here (seeded), the
    outputs onnxruntime-node's CPU kernels"""
    made = []
    rng = np.random.RandomState(2024)
    f32 = TensorProto.FLOAT
    atol, rtol = TOL["float"]
    gemm_acts = [("Relu", {}), ("Tanh", {}), ("Sigmoid", {}), ("Softplus", {}), ("Softsign", {}),
                 ("LeakyRelu", {"alpha": 0.1}), ("Elu", {"alpha": 0.7}), ("Celu", {"alpha": 1.3}),
                 ("ThresholdedRelu", {"alpha": 0.2}), ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}),
                 ("Selu", {"alpha": 1.6, "gamma": 1.05}), ("ParametricSoftplus", {"alpha": 0.8, "beta": 1.5}),
                 ("ScaledTanh", {"alpha": 1.2, "beta": 0.6})]
    for k, (act, ps) in enumerate(gemm_acts):
        ta, tb = k % 2, (k // 2) % 2
        M, N, K = 3, 5, 4
        A = rng.uniform(-2, 2, (K, M) if ta else (M, K)).astype(np.float32)
        B = rng.uniform(-2, 2, (N, K) if tb else (K, N)).astype(np.float32)
        C = rng.uniform(-1, 1, [(M, N), (N,), (1, N), (M, 1)][k % 4]).astype(np.float32)
        attrs = [helper.make_attribute("activation", act), helper.make_attribute("transA", ta),
                 helper.make_attribute("transB", tb), helper.make_attribute("alpha", 0.75),
                 helper.make_attribute("beta", 1.25)]
        attrs += [helper.make_attribute("activation_" + n, v) for n, v in ps.items()]
        ins = [from_np("A", A), from_np("B", B), from_np("C", C)]
        out = ort_outputs(node_dir, "FusedGemm", MS, attrs, ins, 1)[0]
        made.append(write_case("msf_fused_gemm_%s" % snake(act), "FusedGemm", MS, attrs, ins, [out],
                               "Expected outputs computed by onnxruntime-node %s (CPU, one thread, graph optimisation "
                               "off): FusedGemm with activation %s%s, transA %d, transB %d, alpha 0.75, beta 1.25, C "
                               "%s, inputs drawn here (seeded; onnxruntime's tests have no CPU FusedGemm case). "
                               "Tolerance atol %g, rtol %g: %s." %
                               (ort_version(node_dir), act, "".join(", activation_%s %g" % kv for kv in ps.items()),
                                ta, tb, tuple(C.shape), atol, rtol, TOL_WHY), atol, rtol))
    conv_forms = [("tanh_1d", "Tanh", [], (1, 2, 9), (3, 2, 3), {"pads": [1, 1], "strides": [2]}, True, False),
                  ("sigmoid_group2", "Sigmoid", [], (2, 4, 5, 5), (4, 2, 3, 3), {"group": 2, "pads": [1, 1, 1, 1]},
                   True, True),
                  ("leaky_relu_dilated", "LeakyRelu", [0.2], (1, 3, 7, 7), (2, 3, 2, 2),
                   {"dilations": [2, 2], "strides": [2, 1]}, True, True),
                  ("clip_3d", "Clip", [-0.5, 0.5], (1, 2, 4, 4, 4), (3, 2, 2, 2, 2), {"pads": [1, 0, 1, 0, 1, 0]},
                   False, True),
                  ("hard_sigmoid_same_upper", "HardSigmoid", [0.25, 0.5], (1, 3, 6, 5), (4, 3, 3, 3),
                   {"auto_pad": "SAME_UPPER"}, True, False),
                  ("no_activation", None, [], (1, 2, 5, 5), (3, 2, 3, 3), {}, True, True)]
    for name, act, ps, xs, ws, extra, hasb, hasz in conv_forms:
        X = rng.uniform(-1, 1, xs).astype(np.float32)
        W = rng.uniform(-1, 1, ws).astype(np.float32)
        attrs = [helper.make_attribute("kernel_shape", list(ws[2:]))]
        attrs += [helper.make_attribute(k, v) for k, v in extra.items()]
        if act:
            attrs.append(helper.make_attribute("activation", act))
        if ps:
            attrs.append(helper.make_attribute("activation_params", ps))
        ins = [from_np("X", X), from_np("W", W), from_np("B", rng.uniform(-1, 1, ws[0]).astype(np.float32))
               if hasb else None]
        if hasz:  # Z of the output's shape: onnxruntime-node tells it
            y0 = ort_outputs(node_dir, "FusedConv", MS, attrs, ins, 1)[0]
            ins.append(from_np("Z", rng.uniform(-1, 1, list(y0.dims)).astype(np.float32)))
        out = ort_outputs(node_dir, "FusedConv", MS, attrs, ins, 1)[0]
        made.append(write_case("msf_fused_conv_ort_%s" % name, "FusedConv", MS, attrs, ins, [out],
                               "Expected outputs computed by onnxruntime-node %s (CPU, one thread, graph optimisation "
                               "off): FusedConv, activation %s%s, X %s, W %s, %s, %s, %s; inputs drawn here (seeded; "
                               "onnxruntime's FusedConv tests cover Relu and HardSigmoid on 2-D windows alone). "
                               "Tolerance atol %g, rtol %g: %s." %
                               (ort_version(node_dir), act or "none", " %s" % ps if ps else "", xs, ws, extra,
                                "B" if hasb else "no B", "Z" if hasz else "no Z", atol, rtol, TOL_WHY), atol, rtol))
    for ta, tb in ((1, 0), (0, 1)):
        A = rng.uniform(-1, 1, (2, 4, 3) if ta else (2, 3, 4)).astype(np.float32)
        B = rng.uniform(-1, 1, (5, 4) if tb else (4, 5)).astype(np.float32)
        attrs = [helper.make_attribute("transA", ta), helper.make_attribute("transB", tb),
                 helper.make_attribute("alpha", 1.5)]
        ins = [from_np("A", A), from_np("B", B)]
        out = ort_outputs(node_dir, "TransposeMatMul", MS, attrs, ins, 1)[0]
        made.append(write_case("msf_transpose_matmul_%s" % ("ta" if ta else "tb"), "TransposeMatMul", MS, attrs, ins,
                               [out], "Expected outputs computed by onnxruntime-node %s (CPU, one thread, graph "
                               "optimisation off): TransposeMatMul (FusedMatMul's older name, the same CPU kernel), "
                               "transA %d, transB %d, alpha 1.5, A %s, B %s, inputs drawn here (seeded). Tolerance "
                               "atol %g, rtol %g: %s." % (ort_version(node_dir), ta, tb, A.shape, B.shape, atol, rtol,
                                                          TOL_WHY), atol, rtol))
    return made


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    if len(args) != 1:
        raise SystemExit(__doc__)
    ort_dir = args[0]
    for d in os.listdir(HERE):
        if (d.startswith("msq_") or d.startswith("msf_")) and os.path.isdir(os.path.join(HERE, d)):
            shutil.rmtree(os.path.join(HERE, d))
    node_dir = os.environ.get("ORT_NODE_DIR", "/tmp/ort")
    made = literal_cases(ort_dir)
    made += port_concat(ort_dir)
    made += port_softmax(ort_dir)
    made += port_global_pool(ort_dir, node_dir)
    made += port_pool(ort_dir, node_dir)
    made += port_qgemm(ort_dir, node_dir)
    made += port_nbits(ort_dir, node_dir)
    made += hand_nbits()
    made += port_gather(ort_dir)
    made += port_dqmm(ort_dir, node_dir)
    made += port_mitf(ort_dir, node_dir)
    made += port_binary(ort_dir, node_dir)
    made += port_fused_conv(ort_dir)
    made += port_fused_matmul(ort_dir)
    made += port_fused_ort(node_dir)
    print("%d cases" % len(made))


if __name__ == "__main__":
    main()
