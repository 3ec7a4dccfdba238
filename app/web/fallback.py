"""Start the traffic fallback (app.services.broadcast.fallback) once a webhook answer is complete.

Measured with gunicorn 27 (sync worker, Content-Length set): the response
iterable's close() runs after the client has the whole response, but the
worker takes no other request until close() returns. Passenger's
wsgi-loader.py calls close() before it shuts its socket to Passenger's core,
which may be what tells Apache the response ended. So close() does nothing
but start a thread: under both servers it returns at once, the slice runs
beside the next requests, and no reply waits for it.
"""
from __future__ import annotations

import logging
import threading
import time

from flask import Flask, Response

from app.extensions import db

log = logging.getLogger(__name__)
# While cron is on time, a process looks again at most this often (two SELECTs), however busy the webhook.
CHECK_EVERY_SECONDS = 5.0
_running = threading.Lock()  # one slice thread per process; the bot-wide lease decides across processes
_next_check = [0.0]


def start_after(response: Response, app: Flask) -> Response:
    """Arrange for a fallback check when the server closes the response (after sending it)."""
    response.call_on_close(lambda: _start(app))
    return response


def _start(app: Flask) -> None:
    """Start the slice thread unless one runs in this process or the last check is fresh."""
    if time.monotonic() < _next_check[0] or not _running.acquire(blocking=False):
        return
    try:
        # Not a daemon: a worker stopping gracefully lets the slice finish its bounded budget.
        threading.Thread(target=_run, args=(app,), name="cron-fallback").start()
    except RuntimeError:  # the interpreter is shutting down
        _running.release()


def _run(app: Flask) -> None:
    """Run one fallback slice in an app context of its own; never raise (a background thread)."""
    from app.services.broadcast.fallback import drain_slice

    late = False
    try:
        with app.app_context():
            try:
                late = drain_slice() is not None
            finally:
                db.session.remove()
    except Exception:
        log.exception("the cron fallback slice failed")
    finally:
        # While cron is late the next update looks again at once (this process's slice ended, or another
        # process's may have); on time, a process waits CHECK_EVERY_SECONDS before its next look.
        _next_check[0] = 0.0 if late else time.monotonic() + CHECK_EVERY_SECONDS
        _running.release()
