"""The picture's child process: numbers (JSON) on stdin, the PNG on stdout; exit 3 without matplotlib.

Started by reporting.drawing for each picture and gone when it is drawn, so
matplotlib's memory is returned to the host at once.
"""
from __future__ import annotations

import json
import sys

from app.services.broadcast.reporting.results import Curve, Results

NO_MATPLOTLIB = 3  # reporting.drawing.NO_MATPLOTLIB


def results_of(data: dict) -> Results:
    """Rebuild the Results that Results.as_dict gave."""
    return Results(**{**data, "sent": Curve(**data["sent"]), "clicks": Curve(**data["clicks"])})


def main() -> int:
    """Draw the picture asked for on stdin and write it to stdout."""
    try:
        import matplotlib  # noqa: F401 - only to tell its absence apart from a drawing failure
    except ImportError:
        print("matplotlib is not installed: pip install -r requirements-pictures.txt", file=sys.stderr)
        return NO_MATPLOTLIB
    from app.services.broadcast.reporting.chart import render_png

    request = json.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(render_png(results_of(request["results"]), request["lang"]))
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
