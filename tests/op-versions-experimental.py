#!/usr/bin/env python3
"""tests/op-versions-experimental.py ONNX_GIT_DIR > tests/op-versions-experimental.txt

Lists ai.onnx's experimental op-versions, in tests/op-versions.txt's format
(DOMAIN OP SINCE ATTRIBUTES; tests/op-versions.py says it), from the history
of onnx's docs/Changelog.md: until onnx 1.4 the Changelog listed the
experimental operators beside the others (ImageScaler-1, Crop-1 ...); commit
da7c50cb ("ONNX does not maintain versions for experimental ops", 2018-12-19)
was the last to, and onnx 1.5 removed the operators themselves. Each
op-version that a Changelog of that history lists and today's does not
(tests/op-versions.txt) is written with the attributes of its last listing.

ONNX_GIT_DIR is a clone of github.com/onnx/onnx (its history is read with
`git show`). tests/unit/test_registry.c holds onnxop's rows of origin
experimental to this list.
"""
import os
import subprocess
import sys

LAST = "da7c50cb0e5948e43b9d7aa72489b1e040090461"
FIRST = "b6fc1f83b"  # gen_doc.py's first Changelog with versions (2017-11-29)
# Dropped from the Changelog but never experimental: ConstantLike-9 was an
# ordinary opset-9 operator renamed (ConstantOfShape, EyeLike) before onnx 1.4.
NOT_EXPERIMENTAL = {("ConstantLike", 9)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    git = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    now = set()
    for line in open(os.path.join(here, "op-versions.txt")):
        if not line.startswith("#"):
            d, op, since = line.split()[:3]
            now.add((d, op, int(since)))
    commits = subprocess.run(["git", "-C", git, "log", "--format=%H", "%s^..%s" % (FIRST, LAST), "--",
                              "docs/Changelog.md"], capture_output=True, text=True, check=True).stdout.split()
    last = {}  # newest listing first: the first seen wins
    tmp = "/tmp/op-versions-experimental.%d.md" % os.getpid()
    for c in commits:
        text = subprocess.run(["git", "-C", git, "show", c + ":docs/Changelog.md"], capture_output=True,
                              check=True).stdout
        open(tmp, "wb").write(text)
        out = subprocess.run([sys.executable, os.path.join(here, "op-versions.py"), tmp, "/dev/null"],
                             capture_output=True, text=True)
        if out.returncode:
            continue  # a Changelog op-versions.py cannot read (the earliest ones): skipped
        for line in out.stdout.splitlines():
            d, op, since, attrs = line.split(" ", 3)
            key = (d, op, int(since))
            if key not in now and (op, int(since)) not in NOT_EXPERIMENTAL:
                last.setdefault(key, attrs)
    os.unlink(tmp)
    print("# ai.onnx's experimental op-versions: those the history of onnx's docs/Changelog.md")
    print("# (%s^..%s) lists and today's does not, each with its last listing's" % (FIRST[:8], LAST[:8]))
    print("# attributes; made by tests/op-versions-experimental.py (which says how). The format is")
    print("# tests/op-versions.txt's. tests/unit/test_registry.c holds the rows of family origin")
    print("# experimental to it.")
    for key in sorted(last):
        print("%s %s %d %s" % (key + (last[key],)))


main()
