#!/usr/bin/env python3
"""tests/cli/files.py BUILD: what onnxop leaves on disk, checked by looking.

The man page's OUTPUTS section, one check at a time: temporaries are never
followed (a symlink planted where the old code put its temporary), a symlink
at the output is replaced, not followed; the mode is 0666 & ~umask; outputs
are renamed into place all or none (ONNXOP_TEST_FAIL_RENAME=K makes the K-th
rename fail, in the test build; the plain build ignores it); SIGINT, SIGTERM, SIGHUP and SIGPIPE during a write leave no
temporary and no folder the run made, and end the process with the signal; a
file-size limit (ulimit -f) is an error, not a kill; the encoders stream, so
the peak memory of a run that writes a large output stays near the output's
size (the plain build only: ASan's shadow memory would blur it); numpy reads
what was streamed. The last line is "files: N passed, M failed".
"""
import glob
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import time

B = sys.argv[1] if len(sys.argv) > 1 else "build"
X = os.path.abspath(os.path.join(B, "onnxop"))
T = os.path.abspath(os.path.join(B, "files-tests"))
ASAN = os.path.basename(os.path.normpath(B)) == "asan"
# the test build (the ASan one) has the test hooks, such as ONNXOP_TEST_FAIL_RENAME
TEST_BUILD = "test build" in subprocess.run([X, "--version"], capture_output=True, text=True).stdout
MiB = 1 << 20
passed = failed = 0


def check(name, ok, why=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {name}: {why}"[:1200])


def run(*args, env=None, preexec_fn=None):
    p = subprocess.run([X, *args], capture_output=True, text=True, cwd=T,
                       env={**os.environ, **(env or {})}, preexec_fn=preexec_fn)
    return p.returncode, p.stdout, p.stderr


def run_rss(*args):
    """Exit status and the peak RSS (bytes) of this one run."""
    p = subprocess.Popen([X, *args], cwd=T, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    return p.returncode, ru.ru_maxrss * 1024, err


def leftovers(d):
    """Temporaries and kept old files in folder d."""
    return [f for f in os.listdir(d) if ".tmp." in f or ".old." in f] if os.path.isdir(d) else []


def read(path):
    with open(path, "rb") as f:
        return f.read()


shutil.rmtree(T, ignore_errors=True)
os.makedirs(T)
rc, _, err = run("make", "Split", "--opset", "18", "-a", "num_outputs=2", "--input", "x:float32[4]",
                 "--output", "y", "--output", "z", "-o", "split.onnx")
check("setup split", rc == 0, err)
rc, _, err = run("make", "Expand", "--opset", "13", "--input", "x:float32[1]", "--input", "s:int64[2]",
                 "--output", "y", "-o", "expand.onnx")
check("setup expand", rc == 0, err)
SPLIT = ["run", "split.onnx", "--in", "float32[4]:1,2,3,4"]


def reset_victim():
    with open(os.path.join(T, "victim"), "w") as f:
        f.write("VICTIM")


def victim_intact(name):
    check(name + " victim", read(os.path.join(T, "victim")) == b"VICTIM", "the file a symlink points to was written")


# ---- temporaries are never followed ----
# The old code wrote OUT.tmp.PID with fopen("wb"): a symlink planted there for
# the pids about to come was followed. Now the name is unpredictable and made
# with O_EXCL|O_NOFOLLOW.
d = os.path.join(T, "plant")
os.makedirs(d)
reset_victim()
me = os.getpid()
for pid in range(me + 1, me + 3000):
    os.symlink(os.path.join(T, "victim"), os.path.join(d, f"y.pb.tmp.{pid}"))
rc, _, err = run(*SPLIT, "--out", f"y={d}/y.pb", "--out", f"z={d}/z.pb")
check("planted_tmp rc", rc == 0, err)
victim_intact("planted_tmp")
check("planted_tmp regular", stat.S_ISREG(os.lstat(os.path.join(d, "y.pb")).st_mode), "y.pb is not a regular file")
shutil.rmtree(d)

# ---- a symlink at the output's name is replaced, not followed ----
d = os.path.join(T, "final_link")
os.makedirs(d)
reset_victim()
os.symlink(os.path.join(T, "victim"), os.path.join(d, "y.pb"))
rc, _, err = run(*SPLIT, "--out", f"y={d}/y.pb", "--out", f"z={d}/z.pb")
check("final_link rc", rc == 0, err)
victim_intact("final_link")
check("final_link regular", stat.S_ISREG(os.lstat(os.path.join(d, "y.pb")).st_mode), "y.pb is still a symlink")
rc, out, err = run("show", f"{d}/y.pb")
check("final_link value", rc == 0 and "[1., 2.]" in out, out + err)

# ---- the mode is 0666 & ~umask, as for any new file ----
for mask, want in ((0o027, 0o640), (0o000, 0o666), (0o077, 0o600)):
    path = os.path.join(T, f"mode_{mask:03o}.pb")
    rc, _, err = run(*SPLIT, "--out", path, preexec_fn=lambda m=mask: os.umask(m))
    got = stat.S_IMODE(os.stat(path).st_mode) if rc == 0 else None
    check(f"mode umask {mask:03o}", got == want, f"mode {got and oct(got)}, expected {oct(want)}: {err}")

# ---- all or nothing: a failed rename puts back what was already renamed ----
d = os.path.join(T, "commit")


def commit_case(name, fail_at, setup):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    setup()
    rc, _, err = run(*SPLIT, "--out", f"y={d}/y.pb", "--out", f"z={d}/z.pb",
                     env={"ONNXOP_TEST_FAIL_RENAME": str(fail_at)})
    check(f"{name} rc", rc == 1, f"exit {rc}: {err}")
    check(f"{name} message", f"{d}/z.pb: cannot rename into place" in err if fail_at == 2
          else f"{d}/y.pb: cannot rename into place" in err, err)
    check(f"{name} z absent", not os.path.lexists(os.path.join(d, "z.pb")), "z.pb was left")
    check(f"{name} leftovers", not leftovers(d), f"left {leftovers(d)}")
    return err


def old_y():
    with open(os.path.join(d, "y.pb"), "w") as f:
        f.write("OLD")


if TEST_BUILD:
    err = commit_case("commit_restore", 2, old_y)
    check("commit_restore content", read(os.path.join(d, "y.pb")) == b"OLD", "y.pb was not put back")
    check("commit_restore says", f"undone: '{d}/y.pb' put back as it was" in err, err)
    err = commit_case("commit_remove", 2, lambda: None)
    check("commit_remove y", not os.path.lexists(os.path.join(d, "y.pb")), "y.pb was left")
    check("commit_remove says", f"undone: '{d}/y.pb' removed" in err, err)
    reset_victim()
    err = commit_case("commit_symlink", 2, lambda: os.symlink(os.path.join(T, "victim"), os.path.join(d, "y.pb")))
    check("commit_symlink kept", os.path.islink(os.path.join(d, "y.pb")) and
          os.readlink(os.path.join(d, "y.pb")) == os.path.join(T, "victim"), "the symlink was not put back")
    victim_intact("commit_symlink")
    err = commit_case("commit_first", 1, old_y)
    check("commit_first content", read(os.path.join(d, "y.pb")) == b"OLD", "y.pb changed")
else:  # the plain build has no test hooks: the variable changes nothing
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rc, _, err = run(*SPLIT, "--out", f"y={d}/y.pb", "--out", f"z={d}/z.pb", env={"ONNXOP_TEST_FAIL_RENAME": "1"})
    check("commit_hook_ignored", rc == 0 and sorted(os.listdir(d)) == ["y.pb", "z.pb"],
          f"exit {rc}, {sorted(os.listdir(d))}: {err}")
# and with no failure, both are in place and nothing else is
shutil.rmtree(d)
os.makedirs(d)
old_y()
rc, _, err = run(*SPLIT, "--out", f"y={d}/y.pb", "--out", f"z={d}/z.pb")
check("commit_ok", rc == 0 and sorted(os.listdir(d)) == ["y.pb", "z.pb"] and read(f"{d}/y.pb") != b"OLD",
      f"exit {rc}, {sorted(os.listdir(d))}: {err}")

# ---- two outputs that are one file: refused before anything is written ----
d = os.path.join(T, "same")
os.makedirs(os.path.join(d, "o"))
os.symlink("o", os.path.join(d, "olink"))
with open(os.path.join(d, "o", "y.pb"), "w") as f:
    f.write("OLD")
os.link(os.path.join(d, "o", "y.pb"), os.path.join(d, "o", "hard.pb"))
for name, second in (("dot", "o/./y.pb"), ("dotdot", "o/../o/y.pb"), ("symlinked_dir", "olink/y.pb"),
                     ("hard_link", "o/hard.pb")):
    rc, _, err = run(*SPLIT, "--out", f"y={d}/o/y.pb", "--out", f"z={d}/{second}")
    check(f"same_{name} rc", rc == 2, f"exit {rc}: {err}")
    check(f"same_{name} untouched", read(os.path.join(d, "o", "y.pb")) == b"OLD" and
          sorted(os.listdir(os.path.join(d, "o"))) == ["hard.pb", "y.pb"], str(os.listdir(os.path.join(d, "o"))))

# ---- folders: no symlink past the path the command line gave is followed ----
# make --suite S writes S/NAME and S/NAME/test_data_set_K, make --case C
# C/test_data_set_K: a symlink planted at one of those is refused, and
# nothing is written through it; one the command line names is followed.
# (run --out-dir, --save-intermediates and convert make no folder inside the
# one named; the race of a folder swapped for a link after it was checked is
# tests/unit/test_files.c's.)
d = os.path.join(T, "links")
victim = os.path.join(d, "victim")
spec = os.path.join(T, "links_spec.json")
with open(spec, "w") as f:
    f.write('{"cases": [{"name": "t", "op": "Relu", "inputs": [{"name": "x", "type": "float32[2]"}]}]}')
CASE = ["make", "Relu", "--input", "x:float32[2]", "--random", "0"]
for name, plant, link, args in (
        ("suite_case", "out/s/t", "../../victim", ["make", "--spec", spec, "--suite", "out/s"]),
        ("suite_set", "out/s/t/test_data_set_0", "../../../victim", ["make", "--spec", spec, "--suite", "out/s"]),
        ("case_set", "out/c/test_data_set_0", "../../victim", [*CASE, "--case", "out/c"]),
        ("case_set_1", "out/c/test_data_set_1", "../../victim", [*CASE, "--datasets", "2", "--case", "out/c"])):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(victim)
    os.makedirs(os.path.dirname(os.path.join(d, plant)), exist_ok=True)
    os.symlink(link, os.path.join(d, plant))
    before = sorted(os.path.join(r, f) for r, ds, fs in os.walk(os.path.join(d, "out")) for f in ds + fs)
    p = subprocess.run([X, *args], capture_output=True, text=True, cwd=d)
    check(f"link_{name} rc", p.returncode == 1 and f"{plant}: a symbolic link where onnxop writes a folder of its "
          "own; not followed" in p.stderr, f"exit {p.returncode}: {p.stderr}")
    check(f"link_{name} victim", os.listdir(victim) == [], f"written through the link: {os.listdir(victim)}")
    left = sorted(os.path.join(r, f) for r, ds, fs in os.walk(os.path.join(d, "out")) for f in ds + fs)
    check(f"link_{name} nothing left", left == before, f"left {sorted(set(left) - set(before))}")
# a link the command line names is followed, as it was written
shutil.rmtree(d, ignore_errors=True)
os.makedirs(victim)
os.makedirs(os.path.join(d, "out"))
os.symlink("../victim", os.path.join(d, "out", "c"))
p = subprocess.run([X, *CASE, "--case", "out/c"], capture_output=True, text=True, cwd=d)
check("link_named", p.returncode == 0 and sorted(os.listdir(victim)) == ["data.json", "model.onnx", "test_data_set_0"],
      f"exit {p.returncode}, {os.listdir(victim)}: {p.stderr}")
os.symlink("victim", os.path.join(d, "sl"))
p = subprocess.run([X, "make", "--spec", spec, "--suite", "sl/s"], capture_output=True, text=True, cwd=d)
check("link_named_suite", p.returncode == 0 and os.path.isfile(os.path.join(victim, "s", "t", "model.onnx")),
      f"exit {p.returncode}: {p.stderr}")
shutil.rmtree(d)

# ---- a file whose name holds '=' is given with a '/' before it ----
rc, _, err = run(*SPLIT, "--out", "./y=a.pb", "--out", "z.pb")
check("equals_out", rc == 0 and os.path.isfile(os.path.join(T, "y=a.pb")), err)
rc, _, err = run("make", "Identity", "--input", "x:float32[2]", "-o", "id.onnx")
rc, out, err = run("run", "id.onnx", "--in", "./y=a.pb")
check("equals_in", rc == 0 and "[1., 2.]" in out, f"exit {rc}: {out}{err}")
rc, _, err = run(*SPLIT, "--out", "y=a.pb", "--out", "Z=b.pb")
check("name_unknown", rc == 2 and "no output named 'Z' (its outputs: 'y', 'z')" in err
      and not os.path.exists(os.path.join(T, "Z=b.pb")) and not os.path.exists(os.path.join(T, "a.pb")), err)

# ---- signals during a large write: no temporary, no folder, status 128 + signal ----
BIG_JSON = ["run", "expand.onnx", "--in", "float32[1]:1.5", "--in", "int64[2]:1024,4096", "--format", "json"]
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
    name = f"signal_{sig.name}"
    top = os.path.join(T, name)
    out_dir = os.path.join(top, "a", "b")
    p = subprocess.Popen([X, *BIG_JSON, "--out-dir", out_dir], cwd=T, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    seen, t0 = False, time.time()
    while p.poll() is None and time.time() - t0 < 60:
        if glob.glob(os.path.join(out_dir, "*.tmp.*")):
            seen = True
            break
        time.sleep(0.002)
    if seen:
        time.sleep(0.05)  # well into the write
        p.send_signal(sig)
    p.wait()
    p.stderr.close()
    check(f"{name} sent", seen, f"the run ended (exit {p.returncode}) before its temporary was seen")
    check(f"{name} status", p.returncode == -sig, f"exit {p.returncode}, expected death by {sig.name}")
    check(f"{name} nothing left", not os.path.exists(top),
          f"left {[os.path.join(r, f) for r, ds, fs in os.walk(top) for f in ds + fs]}")

# ---- a file-size limit: an error that leaves nothing, not a SIGXFSZ kill ----
def fsize_1mib():
    resource.setrlimit(resource.RLIMIT_FSIZE, (MiB, MiB))


top = os.path.join(T, "fsize")
rc, _, err = run("run", "expand.onnx", "--in", "float32[1]:1.5", "--in", "int64[2]:1024,1024", "--out-dir",
                 f"{top}/a", preexec_fn=fsize_1mib)
check("fsize run", rc == 1 and "File too large" in err and "output_0.pb" in err, f"exit {rc}: {err}")
check("fsize run nothing left", not os.path.exists(top), f"left {top}")
rc, _, err = run("make", "Abs", "--input", "x:float32[1048576]", "--random", "1", "--case", f"{top}/case",
                 preexec_fn=fsize_1mib)
check("fsize make", rc == 1 and "File too large" in err, f"exit {rc}: {err}")
check("fsize make nothing left", not os.path.exists(top), f"left {top}")

# ---- streaming: peak memory near the output's size; numpy reads what was streamed ----
# Measured before this process grows: a child's peak RSS (wait4) counts the
# pages it shared with this process when it was forked, so numpy's loads come
# after.
SIZE = 256 * MiB  # float32 (8192, 8192)
BIG = ["run", "expand.onnx", "--in", "float32[1]:1.5", "--in", "int64[2]:8192,8192"]
streamed = []
for what, extra, file in (("pb", ["--out-dir", "big_pb"], "big_pb/output_0.pb"),
                          ("npy", ["--out-dir", "big_npy", "--format", "npy"], "big_npy/output_0.npy"),
                          ("npz", ["--out", "big.npz"], "big.npz")):
    rc, rss, err = run_rss(*BIG, *extra)
    check(f"stream_{what} rc", rc == 0, err)
    if not ASAN:
        check(f"stream_{what} rss", rss < SIZE + 64 * MiB,
              f"peak RSS {rss / MiB:.0f} MiB for a {SIZE // MiB} MiB output (limit {SIZE // MiB + 64} MiB)")
    if rc == 0:
        streamed.append((what, os.path.join(T, file)))
# JSON: 32 MiB of float32, about 48 MB of text that is never held whole
rc, rss, err = run_rss("run", "expand.onnx", "--in", "float32[1]:1.5", "--in", "int64[2]:2048,4096",
                       "--out", "big.json")
check("stream_json rc", rc == 0, err)
if not ASAN:
    check("stream_json rss", rss < 32 * MiB + 24 * MiB, f"peak RSS {rss / MiB:.0f} MiB for 32 MiB of float32")
try:
    import numpy as np
    import zipfile
except ImportError:
    np = None
    print("files: numpy is missing; the .npy/.npz reads are not checked")
for what, path in streamed:
    if np is not None and what != "pb":
        a = np.load(path, mmap_mode="r") if what == "npy" else np.load(path)["y"]
        check(f"stream_{what} numpy", a.shape == (8192, 8192) and a.dtype == np.float32 and bool((a == 1.5).all()),
              f"{a.shape} {a.dtype}")
        del a
    os.unlink(path)
if rc == 0:
    os.unlink(os.path.join(T, "big.json"))
# several .npz members, each streamed and its CRC patched in: zipfile checks them
if np is not None:
    rc, _, err = run(*SPLIT, "--out", "two.npz")
    z = zipfile.ZipFile(os.path.join(T, "two.npz")) if rc == 0 else None
    check("npz_members", z is not None and z.testzip() is None and
          [list(np.load(os.path.join(T, "two.npz"))[k]) for k in ("y", "z")] == [[1, 2], [3, 4]], err)

print(f"files: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
