"""The results picture's child process: one thread, whatever the host's core count (NPROC counts threads)."""
from __future__ import annotations

import os
import subprocess
import sys

from app.services.broadcast.reporting import drawing

PROBE = ("import os, matplotlib.figure, numpy; "
         "print(open(f'/proc/{os.getpid()}/status').read().split('Threads:')[1].split()[0])")


def test_the_drawing_child_runs_numpy_on_one_thread():
    done = subprocess.run([sys.executable, "-c", PROBE], env=drawing.child_env(), cwd=drawing.ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    assert int(done.stdout) == 1, f"{done.stdout} threads on {os.cpu_count()} cores"
