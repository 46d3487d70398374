#!/usr/bin/env python3
"""tests/cli/on_tty.py ERRFILE CMD...: run CMD with its standard error on a
pseudo-terminal (what a person at a terminal sees), saved in ERRFILE;
standard output passes through. Exits with CMD's status."""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[2:], stderr=slave)
os.close(slave)
err = b""
while True:
    try:
        d = os.read(master, 65536)
    except OSError:  # EIO: every writer closed the terminal
        break
    if not d:
        break
    err += d
with open(sys.argv[1], "wb") as f:
    f.write(err)
sys.exit(p.wait())
