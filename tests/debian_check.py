#!/usr/bin/env python3
"""tests/debian_check.py BUILD: the Debian packages' file lists
(debian/*.install) against what `make install PREFIX=/usr
LIBDIR=/usr/lib/MULTIARCH DESTDIR=BUILD/deb-root`, as debian/rules runs it,
installs: every installed file goes to exactly one
package, every line of a list matches something installed, the shared
library's SONAME is what libonnxop0 is named after, and debian/control names
the packages the lists are for. Before it, the targets debian/rules' build
step makes (`all lib`, with the same PREFIX and LIBDIR) are made, and the
install must then build nothing: no file under BUILD is made or changed
(everything is built in the build step, with the build flags dh passes). `make deb` proves the packages build; this
proves, in every `make check`, that an install change did not leave them
behind. Prints "debian: N passed, M failed"."""
import fnmatch
import os
import re
import subprocess
import sys

build = sys.argv[1]
root = os.path.abspath(f"{build}/deb-root")
arch = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
libdir = f"/usr/lib/{arch}"
subprocess.run(["rm", "-rf", root], check=True)
paths = ["PREFIX=/usr", f"LIBDIR={libdir}"]
# the build step of debian/rules: its make targets, then a snapshot of BUILD
rules = open("debian/rules").read()
m = re.search(r"^override_dh_auto_build:\n\tdh_auto_build -- ([^\n]*)", rules, re.M)
targets = [t for t in (m.group(1).split() if m else []) if "=" not in t and not t.startswith("$")]
built = subprocess.run(["make", "--no-print-directory", "-s", f"B={build}"] + targets + paths,
                       capture_output=True, text=True)


def snapshot():
    out = {}
    for d, dirs, files in os.walk(build):
        dirs[:] = [x for x in dirs if os.path.join(d, x) != os.path.join(build, "deb-root")]
        for f in files:
            p = os.path.join(d, f)
            out[p] = os.lstat(p).st_mtime_ns
    return out


before = snapshot()
inst = subprocess.run(["make", "--no-print-directory", "-s", "install", f"B={build}", f"DESTDIR={root}"] + paths,
                      capture_output=True, text=True)
after = snapshot()
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what)


installed = set()
for d, _, files in os.walk(root):
    for f in files:
        installed.add(os.path.relpath(os.path.join(d, f), root))
check(inst.returncode == 0 and installed, f"make install into {root}: {inst.stdout}{inst.stderr}")
check("lib" in targets and "all" in targets, f"debian/rules' build step makes {targets}, not all and lib")
check(built.returncode == 0, f"make {' '.join(targets)} (debian/rules' build step): {built.stdout}{built.stderr}")
made = sorted(p for p in after if before.get(p) != after[p])
check(not made, f"make install built what the build step did not: {', '.join(made[:10])}")

control = open("debian/control").read()
packages = re.findall(r"^Package: (\S+)", control, re.M)
owner = {}
for name in sorted(os.listdir("debian")):
    if not name.endswith(".install"):
        continue
    pkg = name[: -len(".install")]
    check(pkg in packages, f"debian/{name}: no package {pkg} in debian/control")
    for line in open(f"debian/{name}").read().split("\n"):
        line = line.split("#")[0].strip()
        if not line:
            continue
        pattern = line.replace("${DEB_HOST_MULTIARCH}", arch).split()[0]
        hits = [f for f in installed if fnmatch.fnmatch(f, pattern)]
        check(hits, f"debian/{name}: '{line}' matches nothing that make install installs")
        for f in hits:
            owner.setdefault(f, []).append(pkg)
for f in sorted(installed):
    check(len(owner.get(f, [])) == 1,
          f"{f}: installed, but in {len(owner.get(f, []))} packages' lists ({', '.join(owner.get(f, []))})")

# libonnxop0 carries the library whose SONAME is libonnxop.so.0
libs = [f for f in installed if re.search(r"/libonnxop\.so\.0[.0-9]*$", f)]
check(libs, f"no libonnxop.so.0* under {libdir}")
for f in libs:
    p = os.path.join(root, f)
    if os.path.islink(p):
        continue
    out = subprocess.run(["objdump", "-p", p], capture_output=True, text=True).stdout
    m = re.search(r"SONAME\s+(\S+)", out)
    check(m and m.group(1) == "libonnxop.so.0", f"{f}: SONAME {m.group(1) if m else 'none'}, not libonnxop.so.0")
    check(owner.get(f) == ["libonnxop0"], f"{f}: not in libonnxop0")
print(f"debian: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
