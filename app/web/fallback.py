"""Start the traffic fallback (app.services.broadcast.sending.fallback) once a webhook answer is complete.

Measured, each with a response iterable whose close() sleeps 2 s (Content-Length set, keep-alive asked):
- gunicorn 27, sync worker: the client has the whole response before close() runs, but that worker
  takes no other request until close() returns. A slice there runs in a thread of its own, so the
  worker is free at once; a graceful worker stop waits for the (non-daemon) thread.
- Passenger 6.0.17 (Debian's mod_passenger, Apache): the client also has the whole response before
  close() ends (Passenger ends it at Content-Length), and the process counts as busy until close()
  returns. A process with no request in flight is idle, and Passenger stops idle processes
  (PassengerPoolIdleTime): a slice in a thread was cut off there, leaving its in-flight sends unknown
  (the deployment test saw 12). So under Passenger the slice runs inside close() itself: the reply is
  already out, and the process is not stopped mid-slice; Passenger routes other requests to its other
  processes meanwhile.
"""
from __future__ import annotations

import logging
import threading
import time

from flask import Flask, Response

from app.extensions import db

log = logging.getLogger(__name__)
# While cron is on time, a process looks again at most this often (settings, the clock, the watch row and the
# waiting work: five statements with the COMMIT), however busy the webhook; lateness is judged in minutes.
CHECK_EVERY_SECONDS = 30.0
_running = threading.Lock()  # one slice thread per process; the bot-wide lease decides across processes
_next_check = [0.0]


def start_after(response: Response, app: Flask, environ: dict) -> Response:
    """Arrange for a fallback check when the server closes the response (after sending it)."""
    # wsgi-loader.py puts passenger.hijack in every request's environ: the way to know it is Passenger.
    inline = "passenger.hijack" in environ
    response.call_on_close(lambda: _start(app, inline))
    return response


def _start(app: Flask, inline: bool) -> None:
    """Run the check (and maybe a slice) here or in a thread, unless one runs in this process or the last is fresh."""
    if time.monotonic() < _next_check[0] or not _running.acquire(blocking=False):
        return
    if inline:
        _run(app)
        return
    try:
        # Not a daemon: a worker stopping gracefully lets the slice finish its bounded budget.
        threading.Thread(target=_run, args=(app,), name="cron-fallback").start()
    except RuntimeError:  # the interpreter is shutting down
        _running.release()


def _run(app: Flask) -> None:
    """Run one fallback slice in an app context of its own; never raise (a background thread)."""
    from app.services.broadcast.sending.fallback import drain_slice

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
