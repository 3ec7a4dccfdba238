"""One line instead of a traceback when a flask command meets a database the operator must fix."""
from __future__ import annotations

import sys

import click
from sqlalchemy.exc import InterfaceError, OperationalError

from app.db_errors import UNAVAILABLE, classify, describe
from app.logging_setup import redact

_installed = False


def operator_error(exc: BaseException) -> str | None:
    """Return the one-line message for an operator's database mistake, or None for a bug."""
    if not isinstance(exc, (OperationalError, InterfaceError)) and classify(exc) == UNAVAILABLE:
        return None  # IntegrityError, a bad query...: a bug, whose traceback helps
    return redact(describe(exc))


def install_excepthook() -> None:
    """Print database failures that escape any command (ours or Flask-Migrate's `db`) as one line.

    Click lets every exception but its own escape its main(); Python then calls
    sys.excepthook and exits 1. Hooking there covers `flask db upgrade` too,
    whose commands are not ours to wrap.
    """
    global _installed
    if _installed:
        return
    _installed = True
    previous = sys.excepthook

    def hook(exc_type, exc, tb):
        message = operator_error(exc) if isinstance(exc, Exception) else None
        if message is None:
            previous(exc_type, exc, tb)
        else:
            click.echo(f"Error: {message}", err=True)

    sys.excepthook = hook
