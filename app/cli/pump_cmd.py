"""`flask broadcast pump`: one bounded drain, or the VPS worker loop with --forever."""
from __future__ import annotations

import json
import logging
import signal
import threading
import time

import click
from flask.cli import with_appcontext
from sqlalchemy.exc import SQLAlchemyError

from app.cli.common import CommandError, echo_json
from app.cli.english import english_status
from app.db_errors import describe
from app.extensions import db
from app.models.pump_run import CLI
from app.services import housekeeping
from app.services.broadcast.jobs import control
from app.services.broadcast.schedule.cron_watch import run_recorded
from app.services.broadcast.sending import drain
from app.services.settings import load_settings

log = logging.getLogger(__name__)
# Per-iteration budget of the worker loop: a stop signal waits at most about this long.
FOREVER_SECONDS = 10
# When idle, the worker starts a pump this often: a queued or due job waits at most this long.
FOREVER_INTERVAL = 5.0
MAX_SECONDS = 3600


def run_once(job_id: int | None, seconds: float, settings: dict) -> dict:
    """Pump one job or all of them and return {"jobs": [...], "seconds": elapsed}."""
    started = time.monotonic()
    if job_id is None:
        results = run_recorded(CLI, lambda: drain.pump_all(seconds, settings=settings))
    else:
        results = run_recorded(CLI, lambda: [drain.pump(job_id, seconds, settings=settings)])
    reports = [{**r.to_dict(), "job": english_status(r.job)} for r in results]
    return {"jobs": reports, "seconds": round(time.monotonic() - started, 3)}


def run_forever(seconds: float, interval: float, stop: threading.Event) -> None:
    """Run pump_all every interval (back to back while there is work) until stop is set."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            settings = load_settings()
            report = run_once(None, seconds, settings)
            if report["jobs"]:
                click.echo(json.dumps(report, ensure_ascii=False, default=str))
            housekeeping.run(settings)  # what cron's /internal/pump does after each pump: a VPS has no cron
        except SQLAlchemyError as exc:
            # A worker outlives a database blip; the next iteration starts fresh. One line says why.
            log.error("pump iteration failed: %s; retrying in %s s", describe(exc), interval)
            db.session.rollback()
        except Exception:
            log.exception("pump iteration failed; retrying in %s s", interval)
            db.session.rollback()
        finally:
            db.session.remove()
        stop.wait(max(0.0, interval - (time.monotonic() - started)))


def _stop_on_signals(stop: threading.Event, received: list[str]) -> dict:
    """Set stop on SIGTERM/SIGINT; the running pump still finishes its bounded budget."""
    def handler(signum, frame):
        # Only record here: writing to stderr from a handler can hit a write in progress.
        received.append(signal.Signals(signum).name)
        stop.set()

    return {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGINT)}


@click.command("pump")
@click.option("--job", "job_id", type=click.IntRange(min=1, max=2**63 - 1), metavar="ID", help="Pump only this job.")
# The lease is renewed while a pump runs, so its budget is not tied to the lease;
# an hour bounds a single call (the --forever worker is the long-running form).
@click.option("--seconds", type=click.IntRange(min=1, max=MAX_SECONDS), metavar="N",
              help=f"Budget of each pump (default: cron_pump_seconds; {FOREVER_SECONDS} with --forever).")
@click.option("--forever", is_flag=True, help="Keep pumping until SIGTERM/SIGINT (the VPS worker).")
@click.option("--interval", type=click.FloatRange(min=0.1, max=MAX_SECONDS), metavar="S",
              help=f"With --forever: start a pump at most every S seconds when idle [default: {FOREVER_INTERVAL:g}].")
@with_appcontext
def pump_command(job_id: int | None, seconds: int | None, forever: bool, interval: float | None) -> None:
    """Drain broadcast jobs for a bounded time and print per-job counters as JSON."""
    if interval is not None and not forever:
        raise click.UsageError("--interval only applies with --forever")
    settings = load_settings()
    if not forever:
        if job_id is not None and control.get_job(job_id) is None:
            raise CommandError(f"no broadcast job {job_id}")
        seconds = seconds or settings["cron_pump_seconds"]
        echo_json(run_once(job_id, seconds, settings))
        return
    if job_id is not None:
        raise click.UsageError("--forever pumps every job; drop --job")
    seconds, interval = seconds or FOREVER_SECONDS, interval or FOREVER_INTERVAL
    stop, received = threading.Event(), []
    previous = _stop_on_signals(stop, received)
    click.echo(f"pump worker started: {seconds} s per pump, interval {interval:g} s", err=True)
    try:
        run_forever(seconds, interval, stop)
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
    click.echo(f"received {', '.join(received) or 'stop'}; pump worker stopped", err=True)
