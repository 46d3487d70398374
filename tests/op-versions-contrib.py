#!/usr/bin/env python3
"""tests/op-versions-contrib.py ORT_DIR > tests/op-versions-contrib.txt

Lists onnxruntime's own op-versions, in tests/op-versions.txt's format
(DOMAIN OP SINCE ATTRIBUTES; tests/op-versions.py says it), so that
tests/unit/test_registry.c can hold onnxop's rows of origin onnxruntime to
them: each such row must be one of these, with these attributes.

ORT_DIR is an onnxruntime checkout (or the files below copied out of one):
  - docs/ContribOperators.md: the com.microsoft op-versions and, for each,
    its attributes' names, types and which are required;
  - onnxruntime/core/graph/contrib_ops/*.cc (and contrib_defs.h): the schemas
    that page is generated from, for the attributes' defaults (the page does
    not print them) and for the few operators onnxruntime registers in the
    ai.onnx domain itself (ONNX_CONTRIB_OPERATOR_SCHEMA with
    SetDomain(kOnnxDomain): LayerNormalization-1, SimplifiedLayerNormalization-1
    ...), which the page leaves out.
A default is written as for the spec: an int as it is, a float as Python's
str() of it (1e-12f is 1e-12, -10000.0f is -10000.0), a string unquoted.
"""
import glob
import os
import re
import sys

TYPES = {"int": "int", "float": "float", "string": "string", "tensor": "tensor", "graph": "graph",
         "list of ints": "ints", "list of floats": "floats", "list of strings": "strings",
         "list of tensors": "tensors", "list of graphs": "graphs"}
PROTO = {"INT": "int", "FLOAT": "float", "STRING": "string", "TENSOR": "tensor", "GRAPH": "graph",
         "INTS": "ints", "FLOATS": "floats", "STRINGS": "strings", "TENSORS": "tensors", "GRAPHS": "graphs"}


def md_versions(path):
    """(op, since, {name: (type, required)}) of each com.microsoft section"""
    cur = None
    section = None
    for line in open(path, encoding="utf-8"):
        m = re.match(r'### <a name="com\.microsoft\.(\w+)"></a>', line)
        if m:
            if cur:
                yield cur
            cur, section = [m.group(1), None, {}], None
            continue
        if line.startswith("## ") and cur:
            yield cur
            cur = None
        if cur is None:
            continue
        m = re.match(r"This version of the operator has been available since version (\d+) of the "
                     r"'com\.microsoft' operator set", line)
        if m:
            cur[1] = int(m.group(1))
        if line.startswith("#### "):
            section = line[5:].strip()
        m = re.match(r"<dt><tt>(\w+)</tt> : ([\w ]+?)( \(required\))?</dt>", line)
        if m and section == "Attributes":
            if m.group(2) not in TYPES:
                sys.exit("an attribute type this script does not know: " + line)
            cur[2][m.group(1)] = (TYPES[m.group(2)], bool(m.group(3)))
    if cur:
        yield cur


def balanced(text, i):
    """text[i] is '(': the index of its ')'"""
    depth, q = 0, None
    while i < len(text):
        c = text[i]
        if q:
            if c == "\\":
                i += 1
            elif c == q:
                q = None
        elif c in "\"'":
            q = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def split_args(s):
    out, depth, q, cur = [], 0, None, ""
    for i, c in enumerate(s):
        if q:
            cur += c
            if c == q and s[i - 1] != "\\":
                q = None
            continue
        if c in "\"'":
            q = c
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def number(s, consts):
    s = s.strip()
    s = re.sub(r"^(static_cast<\w+>|int64_t|float|double)\((.*)\)$", r"\2", s).strip()
    s = re.sub(r"^\((int64_t|float|double|int)\)\s*", "", s).strip()
    if s in consts:
        return consts[s]
    if "::" in s and s.split("::")[-1] in consts:
        return consts[s.split("::")[-1]]
    s = re.sub(r"(?<=[0-9.])[fFlL]+$", "", s)
    return float(s)


def default(expr, typ, consts):
    """the default as the row writes it, or None (no default)"""
    e = expr.strip()
    if e in ("OPTIONAL_VALUE", "true", "false"):
        return None
    if typ in ("int", "float"):
        v = number(e, consts)
        return str(int(v)) if typ == "int" else str(float(v))
    if typ == "string":
        m = re.match(r'^(?:std::string\()?"(.*)"\)?$', e)
        if not m:
            sys.exit("a string default this script does not read: " + e)
        return m.group(1)
    if typ in ("ints", "floats"):
        m = re.match(r"^std::vector<\w+>\s*\{(.*)\}$", e, re.S)
        if not m:
            sys.exit("a list default this script does not read: " + e)
        items = [number(x, consts) for x in m.group(1).split(",") if x.strip()]
        return "[" + " ".join(str(int(x)) if typ == "ints" else str(float(x)) for x in items) + "]"
    sys.exit("a default of type %s this script does not read: %s" % (typ, e))


def constants(texts):
    # onnx's TensorProto.DataType ids, which some defaults name
    consts = {"TensorProto_DataType_FLOAT": 1.0, "TensorProto_DataType_DOUBLE": 11.0,
              "TensorProto_DataType_FLOAT16": 10.0, "TensorProto_DataType_BFLOAT16": 16.0}
    for t in texts:
        for m in re.finditer(r"constexpr\s+(?:const\s+)?\w+\s+(\w+)\s*=\s*([-+0-9.eEfF]+)\s*;", t):
            consts[m.group(1)] = number(m.group(2), {})
        for m in re.finditer(r"^\s*([A-Z_][A-Z0-9_]*)\s*=\s*(-?\d+)\s*,", t, re.M):  # enum members
            consts.setdefault(m.group(1), float(m.group(2)))
    return consts


def schemas(texts):
    """(op, since, domain, [(name, type, required, default expr or None)]) per schema block"""
    for t in texts:
        starts = [m for m in re.finditer(r"ONNX_(MS_OPERATOR_SET|CONTRIB_OPERATOR)_SCHEMA\(\s*(\w+)\s*(?:,\s*(\d+))?", t)]
        for k, m in enumerate(starts):
            end = starts[k + 1].start() if k + 1 < len(starts) else len(t)
            block = t[m.start():end]
            ms = m.group(1) == "MS_OPERATOR_SET"
            domain = "com.microsoft"
            since = int(m.group(3)) if m.group(3) else None
            if not ms:
                d = re.search(r"\.SetDomain\((\w+)\)", block)
                domain = "ai.onnx" if d and d.group(1) == "kOnnxDomain" else "com.microsoft"
                sv = re.search(r"\.SinceVersion\((\d+)\)", block)
                since = int(sv.group(1)) if sv else 1
            attrs = []
            for a in re.finditer(r"\.Attr\(", block):
                i = a.end() - 1
                args = split_args(block[i + 1:balanced(block, i)])
                if len(args) < 3 or not args[0].startswith('"'):
                    continue
                p = re.search(r"AttributeProto::(\w+)", args[2])
                if not p or p.group(1) not in PROTO:
                    continue
                typ = PROTO[p.group(1)]
                req = len(args) == 3 or args[3] == "true"
                attrs.append((args[0].strip('"'), typ, req, None if req else args[3]))
            yield m.group(2), since, domain, attrs


def entry(name, typ, req, dflt):
    return "%s:%s%s%s" % (name, typ, ":required" if req else "", "" if dflt is None else "=" + dflt)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    src = sorted(glob.glob(os.path.join(root, "onnxruntime/core/graph/contrib_ops/*.cc")))
    texts = [open(p, encoding="utf-8").read() for p in src]
    heads = [os.path.join(root, "onnxruntime/core/graph/contrib_ops/contrib_defs.h"),
             os.path.join(root, "onnxruntime/contrib_ops/cpu/bert/attention_common.h")]
    consts = constants(texts + [open(p, encoding="utf-8").read() for p in heads if os.path.exists(p)])
    defaults = {}
    onnx_rows = []
    for op, since, domain, attrs in schemas(texts):
        if domain == "com.microsoft":
            for name, typ, req, d in attrs:
                defaults[(op, name)] = (typ, d)
        elif domain == "ai.onnx":
            parts = [entry(n, t, r, None if d is None else default(d, t, consts)) for n, t, r, d in sorted(attrs)]
            onnx_rows.append(("ai.onnx", op, since, ",".join(parts) or "-"))
    rows = []
    for op, since, attrs in md_versions(os.path.join(root, "docs/ContribOperators.md")):
        if since is None:
            sys.exit("no version for com.microsoft." + op)
        parts = []
        for name in sorted(attrs):
            typ, req = attrs[name]
            d = None
            if not req and (op, name) in defaults and defaults[(op, name)][1] is not None:
                d = default(defaults[(op, name)][1], typ, consts)
            parts.append(entry(name, typ, req, d))
        rows.append(("com.microsoft", op, since, ",".join(parts) or "-"))
    print("# onnxruntime's own op-versions: the com.microsoft domain of its docs/ContribOperators.md")
    print("# and the ai.onnx schemas it registers itself (its core/graph/contrib_ops/*.cc), made by")
    print("# tests/op-versions-contrib.py (which says the format) from onnxruntime %s." % (
        os.environ.get("ORT_COMMIT", "(commit not given: set ORT_COMMIT)")))
    print("# tests/unit/test_registry.c holds onnxop's rows of origin onnxruntime to it.")
    for r in sorted(set(onnx_rows)) + sorted(rows):
        print("%s %s %d %s" % r)


main()
