#!/usr/bin/env python3
"""tests/cli/tap_check.py FILE: parse a TAP version 14 stream as a harness
would, then print one line per test point ("N PATH: status") and the totals.
Exit 1, naming each problem, when the stream breaks TAP 14.

Checked: the first line is "TAP version 14"; one plan "1..N"; test points
"ok N - DESC" or "not ok N - DESC" numbered 1, 2, ... in order, with an
optional "# TODO ..." or "# SKIP ..." directive (an unescaped '#' starts
one; "\\#" and "\\\\" are escapes); a YAML block after a point, indented by
two spaces between "---" and "...", whose lines are KEY: VALUE (a plain
number or word, or a double-quoted string); "Bail out!" ends the stream; the
number of points equals the plan unless it bailed out. The status printed
is the YAML block's "status", or "ok" when there is no block."""
import re
import sys

POINT = re.compile(r"^(not ok|ok)(?: ([0-9]+))?(?: -)?(?: (.*))?$")
KV = re.compile(r"^  ([a-z_]+): (.*)$")
QUOTED = re.compile(r'^"((?:[^"\\]|\\["\\]|\\x[0-9a-fA-F]{2})*)"$')


def unescape_desc(s):
    """(description, directive or None): split at the first unescaped '#'"""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] in "#\\":
            out.append(s[i + 1])
            i += 2
            continue
        if c == "#":
            return "".join(out).rstrip(" "), s[i + 1:].strip()
        out.append(c)
        i += 1
    return "".join(out), None


def main():
    errors = []
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0] != "TAP version 14":
        errors.append("the first line is not 'TAP version 14'")
    plan, points, bailed, i = None, [], False, 1
    while i < len(lines):
        line = lines[i]
        i += 1
        m = re.match(r"^1\.\.([0-9]+)$", line)
        if m:
            if plan is not None:
                errors.append(f"line {i}: a second plan")
            plan = int(m.group(1))
            continue
        if line.startswith("Bail out!"):
            bailed = True
            break
        if line.startswith("#") or not line.strip():
            continue
        m = POINT.match(line)
        if not m:
            errors.append(f"line {i}: neither a test point, a plan nor a comment: {line!r}")
            continue
        num = int(m.group(2)) if m.group(2) else None
        if num != len(points) + 1:
            errors.append(f"line {i}: test point {num}, expected {len(points) + 1}")
        desc, directive = unescape_desc(m.group(3) or "")
        if directive is not None and not re.match(r"^(TODO|SKIP)\b", directive, re.I):
            errors.append(f"line {i}: an unescaped '#' starts no TODO or SKIP directive: {line!r}")
        yaml = {}
        if i < len(lines) and lines[i] == "  ---":
            i += 1
            while i < len(lines) and lines[i] != "  ...":
                kv = KV.match(lines[i])
                if not kv:
                    errors.append(f"line {i + 1}: not a YAML key: value line: {lines[i]!r}")
                else:
                    v = kv.group(2)
                    q = QUOTED.match(v)
                    if v.startswith('"') and not q:
                        errors.append(f"line {i + 1}: a bad YAML double-quoted string: {v!r}")
                    elif q:
                        v = re.sub(r'\\(x[0-9a-fA-F]{2}|.)',
                                   lambda e: chr(int(e.group(1)[1:], 16)) if e.group(1)[0] == "x" else e.group(1),
                                   q.group(1))
                    yaml[kv.group(1)] = v
                i += 1
            if i >= len(lines):
                errors.append("a YAML block is not closed with '  ...'")
            i += 1
        todo = directive is not None and directive.upper().startswith("TODO")
        status = yaml.get("status", "ok" if m.group(1) == "ok" else "not ok")
        points.append((num, desc, m.group(1), todo, status))
    if plan is None:
        errors.append("no plan")
    elif not bailed and plan != len(points):
        errors.append(f"the plan says {plan} points, the stream has {len(points)}")
    for e in errors:
        print("tap: " + e)
    for num, desc, okness, todo, status in points:
        print(f"{num} {desc}: {status}{' (todo)' if todo else ''}")
    failing = sum(1 for p in points if p[2] == "not ok" and not p[3])
    print(f"tap: {len(points)} points, {failing} failing{', bailed out' if bailed else ''}")
    return 1 if errors else 0


sys.exit(main())
