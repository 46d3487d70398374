#!/usr/bin/python3
"""tests/checker.py BUILD: models from `onnxop make` are what other tools accept.

For every op-version in the registry (`onnxop ops --json`) with a simple
signature, `onnxop make` writes a model:
  - the signature comes from Debian's python3-onnx schema of that version (or
    of the op's newest version it knows, for later ones): the inputs up to the
    first optional one (two for a variadic one), all of one type constraint T,
    as float32[2,3] (or the first element type both onnx and the registry
    allow), no required attribute; an op-version whose node cannot run on that
    is not simple here (counted, not failed);
  - a few models of other kinds besides (symbolic dims, sequences, optionals,
    ai.onnx.ml, a --for-each-type suite).
Each model then goes through
  - onnx.checker.check_model(model, full_check=True) of python3-onnx, where its
    version knows the opsets and the IR version (1.12: ai.onnx 17, ml 3, IR 8);
  - onnxruntime (ORT_DIR with node_modules/onnxruntime-node, as bench/run.sh
    uses it; never a dependency: skipped with a message when absent), which
    must load it: an operator ORT has no kernel for, or an opset newer than it
    supports, is counted, not failed.
Zero refusals: any other error fails the test.
Prints "checker: N passed, M failed".
"""
import json
import os
import subprocess
import sys
import tempfile

B = sys.argv[1] if len(sys.argv) > 1 else "build"
X = os.path.join(B, "onnxop")
HERE = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def fail(msg):
    global failed
    failed += 1
    print("FAIL: " + msg)


try:
    import onnx
    from onnx import defs
except ImportError:
    onnx = None
    print("checker: python3-onnx is missing (apt-get install python3-onnx); onnx's checker not run")

rows = json.loads(subprocess.run([X, "ops", "--json"], check=True, capture_output=True, text=True).stdout)
work = tempfile.mkdtemp(prefix="onnxop-checker-", dir=B)

# what this python3-onnx knows: its newest opset per domain, and IR version
known = {}
if onnx:
    for s in defs.get_all_schemas_with_history():
        known[s.domain] = max(known.get(s.domain, 0), s.since_version)
    ir_known = onnx.IR_VERSION


def onnx_dtype(t):  # 'tensor(float)' -> 'float'
    return t[len("tensor("):-1] if t.startswith("tensor(") else None


def signature(row):
    """[(input TYPE text)...] and the output count, or None: not simple."""
    if not onnx or "required" in row:
        return None
    dom = "" if row["domain"] == "ai.onnx" else row["domain"]
    if dom not in known:
        return None
    try:
        s = defs.get_schema(row["op"], min(row["since"], known[dom]), dom)
    except Exception:
        return None
    O = defs.OpSchema.FormalParameterOption
    params = set()
    n = 0
    for f in s.inputs:
        if f.option == O.Optional:
            break
        params.add(f.typeStr)
        n += 2 if f.option == O.Variadic else 1
    nout = 0
    for f in s.outputs:
        if f.option == O.Optional:
            break
        nout += 1
    if not n or len(params) != 1 or not nout:
        return None
    t = params.pop()
    allowed = None
    for c in s.type_constraints:
        if c.type_param_str == t:
            allowed = [onnx_dtype(a) for a in c.allowed_type_strs]
    if allowed is None:  # a fixed type, such as tensor(int64)
        allowed = [onnx_dtype(t)]
    ours = row["types"] or allowed
    both = [a for a in allowed if a and a in ours]
    if not both:
        return None
    dt = "float" if "float" in both else both[0]
    return ["%s[2,3]" % dt] * n, nout


# op-versions whose schema lists no required attribute but that need one:
# Split-18 needs the split input or num_outputs (its text says so; ORT's
# shape inference refuses neither), and ORT's Scaler kernel needs scale and offset
ATTRS = {("ai.onnx", "Split", 18): ["-a", "num_outputs=1"], ("ai.onnx.ml", "Scaler", 1): ["-a", "scale=[2.0]", "-a", "offset=[0.5]"]}


def extra_attrs(row):
    best = []
    for (d, op, since), a in ATTRS.items():
        if d == row["domain"] and op == row["op"] and row["since"] >= since:
            best = a
    return best


def make(args, path):
    r = subprocess.run([X, "make"] + args, capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


models = []  # (path, what)
not_simple = 0
for row in rows:
    sig = signature(row)
    if not sig:
        not_simple += 1
        continue
    ins, nout = sig
    what = "%s %s-%d" % (row["domain"], row["op"], row["since"])
    path = os.path.join(work, "%s_%s_%d.onnx" % (row["domain"], row["op"], row["since"]))
    args = [row["op"], "--domain", row["domain"], "--opset", str(row["since"]), "-o", path] + extra_attrs(row)
    for k, t in enumerate(ins):
        args += ["--input", "x%d:%s" % (k, t)]
    for k in range(nout):
        args += ["--output", "y%d" % k]
    rc, err = make(args, path)
    if rc:
        not_simple += 1  # the node cannot run on this signature
        continue
    models.append((path, what))

# other kinds of models: symbolic dims, sequences, optionals, ai.onnx.ml, a sweep
extra = [
    ("Relu --input x:float32[N,3] --dim N=2 --opset 17", "symbolic dims"),
    ("Add --input a:float32[N,3] --input b:float32[3] --dim N=4 --opset 14", "symbolic dims, broadcast"),
    ("SequenceAt --opset 11 --input s:seq(tensor(float)) --input p:int64[] --output y:float32[?,?]", "sequence"),
    ("OptionalHasElement --opset 15 --input x:optional(tensor(float)) --output y:bool[]", "optional"),
    ("Binarizer --domain ai.onnx.ml --opset 1 --input x:float32[2,3]", "ai.onnx.ml"),
    ("Scaler --domain ai.onnx.ml -a offset=[0.5] -a scale=[2.0] --input x:float32[2,3] --opset 3", "ai.onnx.ml"),
    ("Gather --opset 13 --input x:float32[5,2] --input i:int64[3] --range i=0:4", "two types"),
    ("Cast --opset 13 -a to=7 --input x:float32[2,3]", "attribute"),
    ("TopK --opset 11 --input x:float32[3,4] --input k:int64[1] --output v --output i --range k=2:2", "two outputs"),
]
for k, (cmd, what) in enumerate(extra):
    path = os.path.join(work, "extra_%d.onnx" % k)
    args = cmd.split() + ["-o", path]
    rc, err = make(args, path)
    if rc:
        fail("onnxop make %s: %s" % (cmd, err))
    else:
        models.append((path, what))
suite = os.path.join(work, "suite")
rc, err = make(["Add", "--opset", "14", "--input", "a:T[2,3]", "--input", "b:T[3]", "--for-each-type", "T",
                "--suite", suite, "--random", "0"], suite)
if rc:
    fail("onnxop make --for-each-type: " + err)
else:
    for c in sorted(os.listdir(suite)):
        models.append((os.path.join(suite, c, "model.onnx"), "sweep " + c))

# what the checker refuses, `onnxop make` refuses too, as a usage error naming
# it, and writes nothing: an attribute given twice (-a twice, or a spec's
# "alpha" and "alpha:float"); the checker says "appeared multiple times"
spec = os.path.join(work, "twice.json")
with open(spec, "w") as f:
    f.write('{"cases": [{"name": "t", "op": "LeakyRelu", "opset": 16, "attributes": {"alpha": 0.1, '
            '"alpha:float": 0.2}, "inputs": [{"name": "x", "type": "float32[2]"}]}]}')
refused = [
    (["LeakyRelu", "--opset", "16", "--input", "x:float32[2]", "-a", "alpha=0.1", "-a", "alpha=0.2", "-o",
      os.path.join(work, "twice.onnx")], os.path.join(work, "twice.onnx"), "attribute 'alpha' is given twice"),
    (["--spec", spec, "--suite", os.path.join(work, "twice")], os.path.join(work, "twice", "t", "model.onnx"),
     'attribute "alpha" is given twice'),
]
for args, model, says in refused:
    rc, err = make(args, model)
    if rc != 2 or says not in err or os.path.exists(model):
        why = ""
        if onnx and os.path.exists(model):
            try:
                onnx.checker.check_model(onnx.load(model), full_check=True)
            except Exception as ex:
                why = "; onnx.checker refuses what it wrote: " + str(ex).strip().splitlines()[0][:200]
        fail("onnxop make %s: exit %d, expected 2 saying %r: %s%s" % (" ".join(args), rc, says, err[:300], why))
    else:
        passed += 1

# onnx's checker, where it knows the opsets and the IR version
checked = unknown = 0
for path, what in models:
    if not onnx:
        break
    m = onnx.load(path)
    if m.ir_version > ir_known or any(o.version > known.get(o.domain or "", 0) for o in m.opset_import):
        unknown += 1
        continue
    try:
        onnx.checker.check_model(m, full_check=True)
        checked += 1
        passed += 1
    except Exception as ex:
        fail("onnx.checker refuses %s (%s): %s" % (path, what, str(ex).strip().splitlines()[0][:300]))
if onnx:
    print("onnx %s checker: %d models accepted, %d with an opset or IR version it does not know (not checked); "
          "%d op-versions without a simple signature" % (onnx.__version__, checked, unknown, not_simple))

# onnxruntime, when present
ort = os.environ.get("ORT_DIR")
if not ort or not os.path.isdir(os.path.join(ort, "node_modules", "onnxruntime-node")):
    print("onnxruntime: skipped (set ORT_DIR to a folder with node_modules/onnxruntime-node, as for make bench)")
else:
    lst = os.path.join(work, "models.txt")
    with open(lst, "w") as f:
        f.write("\n".join(p for p, _ in models) + "\n")
    r = subprocess.run(["node", os.path.join(HERE, "ort_load.js"), lst], capture_output=True, text=True,
                       env=dict(os.environ, ORT_DIR=ort))
    if r.returncode:
        fail("tests/ort_load.js: " + r.stderr.strip()[:500])
    loaded = no_kernel = too_new = 0
    version = "?"
    whats = dict(models)
    for line in r.stdout.splitlines():
        res = json.loads(line)
        if "version" in res:
            version = res["version"]
        elif res["ok"]:
            loaded += 1
            passed += 1
        elif "NOT_IMPLEMENTED" in res["error"] or "Could not find an implementation" in res["error"]:
            no_kernel += 1
        elif "ValidateOpsetForDomain" in res["error"]:  # "Opset 28 is under development"
            too_new += 1
        else:
            fail("onnxruntime refuses %s (%s): %s" % (res["path"], whats.get(res["path"]), res["error"][:300]))
    print("onnxruntime %s: %d models loaded, %d with an operator it has no kernel for, %d with an opset it does "
          "not support yet" % (version, loaded, no_kernel, too_new))

if not failed:
    import shutil
    shutil.rmtree(work, ignore_errors=True)
print("checker: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
