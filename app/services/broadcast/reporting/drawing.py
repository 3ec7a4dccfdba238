"""Draw a results picture in a short-lived child process, so the calling process never loads matplotlib.

A web worker lives for days: matplotlib and its fonts add some 60 MB that
Python never returns once imported. The child (`python -m
app.services.broadcast.reporting.draw`) reads the numbers as JSON on stdin,
writes the PNG on stdout and exits, giving its memory back. matplotlib is an
optional extra (requirements-pictures.txt): without it there is no picture,
and the caller says the numbers as text instead.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from app.services.broadcast.reporting.results import Results

# The child's exit status when matplotlib cannot be imported.
NO_MATPLOTLIB = 3
# A picture takes about a second; a child that takes this long is stuck, and is killed.
CHILD_SECONDS = 120
# numpy's BLAS would start a thread per core (dozens on a shared host's big machine): NPROC counts them.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


class PicturesMissing(RuntimeError):
    """matplotlib is not installed: the results picture cannot be drawn."""


def available() -> bool:
    """Tell whether matplotlib can be imported, without importing it."""
    try:
        return importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):  # a blocked or half-removed package counts as missing
        return False


def child_env() -> dict[str, str]:
    """Return the drawing child's environment: this one, the app importable, numpy on one thread."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, (ROOT, os.environ.get("PYTHONPATH")))),
                **ONE_THREAD)


def render_png(results: Results, lang: str) -> bytes:
    """Return the results picture as PNG bytes, drawn by a child process; PicturesMissing without matplotlib."""
    if not available():
        raise PicturesMissing("matplotlib is not installed")
    done = subprocess.run([sys.executable, "-m", "app.services.broadcast.reporting.draw"], cwd=ROOT, env=child_env(),
                          input=json.dumps({"results": results.as_dict(), "lang": lang}).encode(),
                          capture_output=True, timeout=CHILD_SECONDS, check=False)
    if done.returncode == NO_MATPLOTLIB:
        raise PicturesMissing("matplotlib cannot be imported")
    if done.returncode != 0 or not done.stdout:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"the picture's child exited {done.returncode}: {' | '.join(tail)}")
    return done.stdout
