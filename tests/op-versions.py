#!/usr/bin/env python3
"""tests/op-versions.py CHANGELOG_MD CHANGELOG_ML_MD > tests/op-versions.txt

Lists every op-version of ONNX's docs/Changelog.md and docs/Changelog-ml.md
(one "### Op-N" heading each) with its attributes as the page gives them, so
that tests/unit/test_registry.c can hold onnxop's operator table to the spec:
every op-version has a row, no row is not an op-version, and each row's
attributes are these. Run it on a newer onnx checkout when ONNX adds
versions (fetch github:onnx/onnx, then `git show HEAD:docs/Changelog.md`);
the diff of tests/op-versions.txt is then the list of rows to add.

One line per op-version, sorted by domain ("ai.onnx" first), op, since:
    DOMAIN OP SINCE ATTRIBUTES
ATTRIBUTES is "-" when the page lists none, "(deprecated)" for a version
that only marks the op deprecated (its page lists none), else the entries
"name:type", ":required" where the page says so, "=default" where it gives
one, sorted by name and joined by commas: "axis:int=1,keepdims:int=1".
Types as in ox_attr_type_name ("list of ints" is "ints"); a list default is
written "[a b]"; the rest of a default is the page's text, unquoted.
"""
import re
import sys

TYPES = {"int": "int", "float": "float", "string": "string", "tensor": "tensor",
         "graph": "graph", "sparse_tensor": "sparse_tensor", "type_proto": "type_proto",
         "list of ints": "ints", "list of floats": "floats", "list of strings": "strings",
         "list of tensors": "tensors", "list of graphs": "graphs",
         "list of sparse_tensors": "sparse_tensors", "list of type_protos": "type_protos"}


def default(text):
    # "(3.402823e+38)" -> 3.402823e+38; "['Tanh', 'Tanh']" -> [Tanh Tanh]
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    if text.startswith("["):
        return "[" + " ".join(x.strip().strip("'") for x in text[1:-1].split(",")) + "]"
    if re.search(r"[\s,=\[\]]", text):
        sys.exit("a default this format can't hold: " + text)
    return text


def versions(path, domain):
    cur, section = None, None
    for line in open(path, encoding="utf-8"):
        m = re.match(r"## Version \d+ of the '([\w.]+)' operator set", line)
        if m:
            domain = m.group(1)
        m = re.match(r'### <a name="([\w.]+)-(\d+)"></a>\*\*[\w.]+-\d+\*\*( \(deprecated\))?', line)
        if m:
            if cur:
                yield cur
            op = m.group(1)
            if op.startswith(domain + "."):
                op = op[len(domain) + 1:]
            cur, section = [domain, op, int(m.group(2)), [], bool(m.group(3))], None
            continue
        if line.startswith("### "):
            sys.exit("a heading this script does not know: " + line)
        if cur is None:
            continue
        if line.startswith("#### "):
            section = line[5:].strip()
        elif section == "Attributes" and line.startswith("<dt>"):
            m = re.match(r"<dt><tt>(\w+)</tt> : ([\w ]+?)( \(required\))?( \(default is (.*)\))?</dt>$",
                         line.strip())
            if not m or m.group(2) not in TYPES:
                sys.exit("an attribute this script does not know: " + line)
            a = m.group(1) + ":" + TYPES[m.group(2)]
            if m.group(3):
                a += ":required"
            if m.group(4):
                a += "=" + default(m.group(5))
            cur[3].append(a)
    if cur:
        yield cur


rows = list(versions(sys.argv[1], "ai.onnx")) + list(versions(sys.argv[2], "ai.onnx.ml"))
rows.sort(key=lambda r: ("" if r[0] == "ai.onnx" else r[0], r[1], r[2]))
for domain, op, since, attrs, deprecated in rows:
    if deprecated and attrs:
        sys.exit("%s-%d: a deprecated version with attributes" % (op, since))
    text = ",".join(sorted(attrs, key=lambda a: a.split(":")[0])) or "-"
    print(domain, op, since, "(deprecated)" if deprecated else text)
