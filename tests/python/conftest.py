"""The Python layer's tests (tests/check.sh runs them with Debian's python3).

They import the package of this tree (python/onnxop), which loads
BUILD/libonnxop.so.0 (ONNXOP_LIBRARY when set). The environment says where
the rest is: ONNXOP_BUILD (build), SHARED_SUITE (../shared/onnx-node-tests;
empty: skipped on purpose), DEBIAN_DATA (/usr/share/libonnx-testdata/data).
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, os.environ.get("ONNXOP_BUILD", "build"))
sys.path.insert(0, os.path.join(ROOT, "python"))
if "ONNXOP_LIBRARY" not in os.environ:
    os.environ["ONNXOP_LIBRARY"] = os.path.join(BUILD, "libonnxop.so.0")

SUITE = os.environ.get("SHARED_SUITE", os.path.join(ROOT, "..", "shared", "onnx-node-tests"))
DEBIAN = os.environ.get("DEBIAN_DATA", "/usr/share/libonnx-testdata/data")
ONNXOP = os.path.join(BUILD, "onnxop")


def need_suite():
    """The node-test suite's path; skip, saying why, when it is absent."""
    if not SUITE:
        pytest.skip("the node-test suite is skipped on purpose (SHARED_SUITE is empty)")
    if not os.path.isdir(SUITE):
        pytest.skip(f"the node-test suite {SUITE} is missing (make check SHARED_SUITE=DIR points at it)")
    return SUITE


def cli(*args, check=False):
    """Run the onnxop command: (exit status, stdout, stderr)."""
    p = subprocess.run([ONNXOP, *args], capture_output=True, text=True)
    if check and p.returncode:
        raise AssertionError(f"onnxop {' '.join(args)}: {p.returncode}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """The line tests/check.sh counts: "python: N passed, M failed"."""
    stats = terminalreporter.stats
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    terminalreporter.write_line(f"python: {len(stats.get('passed', []))} passed, {failed} failed")
