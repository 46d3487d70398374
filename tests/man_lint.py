#!/usr/bin/python3
"""tests/man_lint.py MAN: words the man page would run together.

The alternating font macros (.BR, .IR, .RB, .RI, .BI, .IB) join their
arguments without a space: ".IR NAME= . Without either" renders as
"NAME=.Withouteither". Two ordinary words so joined, or a lone full stop or
comma and the word after it, are such joins (a placeholder in capitals joined
to a literal, as in NAME : TYPE, is what the macros are for). Also runs groff
with all warnings (-ww), which must be silent.
Prints "man: N passed, M failed".
"""
import re
import shlex
import subprocess
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "man/onnxop.1"


def word(x):  # an ordinary word, not a placeholder in capitals
    return re.fullmatch(r"[A-Za-z][a-z]+[,.;:]?", x) is not None

bad = 0
checked = 0
for no, line in enumerate(open(path, encoding="utf-8"), 1):
    m = re.match(r"\.(BR|IR|RB|RI|BI|IB)\s+(.*)", line.rstrip("\n"))
    if not m:
        continue
    checked += 1
    try:
        args = shlex.split(m.group(2).replace("\\", "\\\\"), posix=True)
    except ValueError:
        args = m.group(2).split()
    for a, b in zip(args, args[1:]):
        a = a.replace("\\\\", "\\")
        b = b.replace("\\\\", "\\")
        # two ordinary words ("Without" "either"), or a lone mark and a word
        # ("." "Without"); a literal joined to a placeholder (FILE .npz:
        # MEMBER, _v N) is what these macros are for
        joined = (word(a) and word(b)) or (a in (".", ",", ";") and word(b))
        if joined:
            bad += 1
            print("FAIL %s:%d: '%s' and '%s' run together: %s" % (path, no, a, b, line.strip()))
r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", path], capture_output=True, text=True)
if r.returncode or r.stderr.strip():
    bad += 1
    print("FAIL groff -ww: " + r.stderr.strip()[:500])
print("man: %d passed, %d failed" % (checked + 1 - (1 if r.stderr.strip() else 0), bad))
sys.exit(1 if bad else 0)
