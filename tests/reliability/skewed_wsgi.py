"""wsgi:app on a server whose own clock is off by CLOCK_SKEW_SECONDS (for the several-servers test).

Every app module's ``utcnow`` (app.clock, this server's wall clock) is
replaced by a skewed one; the database's clock is untouched. Anything the
servers decide together must read the database's clock, so a server whose
clock is an hour off still takes leases, budget slots and cron alerts right.
"""
from __future__ import annotations

import os
import sys
from datetime import timedelta

from app import clock
from wsgi import app  # noqa: F401 - gunicorn serves this

_SKEW = timedelta(seconds=float(os.environ.get("CLOCK_SKEW_SECONDS", "0")))
_real = clock.utcnow


def _skewed():
    """Return this server's (wrong) UTC time."""
    return _real() + _SKEW


for _module in list(sys.modules.values()):
    if getattr(_module, "__name__", "").startswith("app") and getattr(_module, "utcnow", None) is _real:
        _module.utcnow = _skewed
