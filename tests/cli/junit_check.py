#!/usr/bin/env python3
"""tests/cli/junit_check.py FILE: check a JUnit XML report against what the
Ant JUnit schema (windyroad's JUnit.xsd, the one Jenkins and GitLab follow)
requires, then print one line per testcase ("classname name: status") and
the totals. Exit 1, naming each violation, when the file breaks the schema.

Required: <testsuites> holding only <testsuite>s; each testsuite with name,
package, id (0, 1, ...), timestamp (YYYY-MM-DDTHH:MM:SS, no zone), hostname,
tests, failures, errors, time (skipped optional), no other attribute; its
children <properties> (first), <testcase>*, <system-out>, <system-err> in that
order; each property with name and value; each testcase with name, classname
and time, and at most one of <skipped>, <error type=...>, <failure type=...>;
the counts equal to the testcases it holds."""
import re
import sys
import xml.etree.ElementTree as ET

errors = []


def bad(msg):
    errors.append(msg)


INT = re.compile(r"^-?[0-9]+$")
DEC = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
STAMP = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$")


def attrs(el, where, required, optional=()):
    for a in required:
        if a not in el.attrib:
            bad(f"{where}: <{el.tag}> lacks the attribute {a}")
    for a in el.attrib:
        if a not in required and a not in optional:
            bad(f"{where}: <{el.tag}> has an attribute the schema does not allow: {a}")


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except ET.ParseError as e:
        print(f"junit: {sys.argv[1]}: not well-formed XML: {e}")
        return 1
    if root.tag != "testsuites":
        bad(f"the root is <{root.tag}>, not <testsuites>")
    if root.attrib:
        bad("<testsuites> has attributes (the schema allows none)")
    totals = {}
    lines = []
    for sid, ts in enumerate(root):
        where = f"testsuite {sid}"
        if ts.tag != "testsuite":
            bad(f"<testsuites> holds <{ts.tag}>")
            continue
        attrs(ts, where, ("name", "package", "id", "timestamp", "hostname", "tests", "failures", "errors", "time"),
              ("skipped",))
        a = ts.attrib
        if not a.get("name", "").strip():
            bad(f"{where}: an empty name")
        if not a.get("hostname", "").strip():
            bad(f"{where}: an empty hostname")
        if a.get("id") != str(sid):
            bad(f"{where}: id is {a.get('id')!r}, not {sid}")
        if not STAMP.match(a.get("timestamp", "")):
            bad(f"{where}: timestamp {a.get('timestamp')!r} is not YYYY-MM-DDTHH:MM:SS")
        for k in ("tests", "failures", "errors", "skipped"):
            if k in a and not INT.match(a[k]):
                bad(f"{where}: {k}={a[k]!r} is not an integer")
        if not DEC.match(a.get("time", "")):
            bad(f"{where}: time={a.get('time')!r} is not a decimal")
        kids = [k.tag for k in ts]
        m = re.fullmatch(r"properties,(testcase,)*system-out,system-err,", "".join(k + "," for k in kids))
        if not m:
            bad(f"{where}: children {kids} are not properties, testcase*, system-out, system-err")
        count = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for el in ts:
            if el.tag == "properties":
                for p in el:
                    if p.tag != "property":
                        bad(f"{where}: <properties> holds <{p.tag}>")
                    attrs(p, where, ("name", "value"))
                    if not p.attrib.get("name", "").strip():
                        bad(f"{where}: a property with an empty name")
            elif el.tag == "testcase":
                attrs(el, where, ("name", "classname", "time"))
                if not DEC.match(el.attrib.get("time", "")):
                    bad(f"{where}: testcase {el.attrib.get('name')!r}: time is not a decimal")
                count["tests"] += 1
                kids = list(el)
                if len(kids) > 1:
                    bad(f"{where}: testcase {el.attrib.get('name')!r} holds {len(kids)} elements, the schema one")
                status = "pass"
                for k in kids:
                    if k.tag in ("failure", "error"):
                        attrs(k, where, ("type",), ("message",))
                        count["failures" if k.tag == "failure" else "errors"] += 1
                    elif k.tag == "skipped":
                        count["skipped"] += 1
                    else:
                        bad(f"{where}: testcase {el.attrib.get('name')!r} holds <{k.tag}>")
                    status = f"{k.tag} {k.attrib.get('type', '')}".strip()
                lines.append(f"{el.attrib.get('classname')} {el.attrib.get('name')}: {status}")
                totals[status] = totals.get(status, 0) + 1
            elif el.tag in ("system-out", "system-err"):
                if len(el):
                    bad(f"{where}: <{el.tag}> holds elements")
        for k, v in count.items():
            if k in a and INT.match(a[k]) and int(a[k]) != v:
                bad(f"{where}: {k}={a[k]} but it holds {v}")
    for e in errors:
        print("junit: " + e)
    for l in lines:
        print(l)
    print("junit: " + ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
    return 1 if errors else 0


sys.exit(main())
