"""Is cron calling? Every pump run is recorded; late cron is reported once per outage and shown where admins look.

"Cron" here is the HTTP cron job (/internal/pump) or a CLI pump (`flask
broadcast pump`, its crontab form or the --forever worker). Cron is late when
work waits (a queued or running job, or a scheduled one that is due) and
neither has started for cron_alert_minutes, counted from when the work began
waiting if that is later. Times are the database's clock (every server agrees).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import QUEUED, RUNNING, SCHEDULED
from app.models.pump_run import CRON_SOURCES
from app.repository import pump_runs as repo
from app.repository.db_clock import db_utcnow
from app.services import admins
from app.services.broadcast.schedule.releases import grace
from app.texts import t

log = logging.getLogger(__name__)
# The job states whose views carry the late-cron line: cron moves them (a paused job waits for an admin).
CRON_DRIVEN = (QUEUED, RUNNING, SCHEDULED)


@dataclass(frozen=True)
class CronState:
    """What the watch sees now: cron's last start, the waiting work, and whether cron is late."""

    now: datetime
    last_cron_at: datetime | None
    waiting: tuple[tuple[int, str, datetime, int, int], ...]
    late: bool
    alerted: bool = False  # this outage's alert went out already (as last read)

    @property
    def minutes_ago(self) -> int | None:
        """Whole minutes since cron last started (None: never seen)."""
        if self.last_cron_at is None:
            return None
        return max(int((self.now - self.last_cron_at).total_seconds() // 60), 0)

    def to_dict(self) -> dict:
        """Return the JSON form /healthz answers."""
        return {"last_run": _iso(self.last_cron_at), "minutes_ago": self.minutes_ago, "late": self.late,
                "waiting_jobs": [job_id for job_id, *_ in self.waiting]}


def cron_state(settings: dict) -> CronState:
    """Read the watch row and the waiting work; commit (nothing stays open)."""
    now = db_utcnow()
    row = repo.watch()
    last, alerted = (row.last_cron_at, row.alerted_at is not None) if row else (None, False)
    waiting = tuple(repo.waiting_jobs(now, grace(settings)))
    db.session.commit()
    late = False
    if waiting:
        since = min((w[2] for w in waiting if w[2] is not None), default=now)  # the oldest waiting work
        reference = max(since, last) if last else since
        late = now - reference >= timedelta(minutes=settings["cron_alert_minutes"])
    return CronState(now, last, waiting, late, alerted)


def runs() -> list[dict]:
    """Return every pump source's record (cron, cli, admin, fallback): its last run and its totals; commits."""
    rows = [{"source": r.source, "runs": r.runs, "processed_total": r.processed_total, "ms_total": r.ms_total,
             "last_started_at": _iso(r.last_started_at), "last_finished_at": _iso(r.last_finished_at),
             "last_ms": r.last_ms, "last_processed": r.last_processed} for r in repo.all_runs()]
    db.session.commit()
    return rows


def _iso(value: datetime | None) -> str | None:
    """Render a stored UTC time as ISO 8601 with a Z, or None."""
    return value.isoformat(timespec="seconds") + "Z" if value else None


def run_recorded(source: str, run):
    """Call run() (a pump: returns PumpResults) and record it under source; a cron source first marks cron seen."""
    started = db_utcnow()
    if source in CRON_SOURCES:
        _best_effort(repo.cron_seen, started)
    results = []
    try:
        results = run()
        return results
    finally:
        processed = sum(r.processed for r in results)
        _best_effort(lambda: repo.record(source, started, db_utcnow(), processed))


def _best_effort(write, *args) -> None:
    """Run one bookkeeping write and commit; it never fails the pump (logged, rolled back)."""
    try:
        write(*args)
        db.session.commit()
    except SQLAlchemyError as exc:
        db.session.rollback()
        log.warning("recording a pump run failed: %s", type(exc).__name__)


def late_line(settings: dict, lang: str, status: str = RUNNING) -> str:
    """Return "last cron run N min ago" (with its leading blank line) for a job cron should move, while cron is late."""
    if status not in CRON_DRIVEN:
        return ""
    state = cron_state(settings)
    if not state.late:
        return ""
    if state.minutes_ago is None:
        return "\n\n" + t("cron_late_never", lang)
    return "\n\n" + t("cron_late_line", lang, minutes=state.minutes_ago)


def waiting_text(state: CronState, lang: str) -> str:
    """Describe the waiting work: one line per job (id, status, how many items are left)."""
    return "\n".join(t("cron_waiting_job", lang, id=job_id, status=t(f"status_{status}", lang),
                       left=max(total - processed, 0))
                     for job_id, status, _since, total, processed in state.waiting)


def alert_if_late(settings: dict, state: CronState, *, outbox, draining: str) -> bool:
    """Tell every admin once per outage that cron is late; True if this caller won and sent it.

    draining is the text key saying how the queue moves meanwhile. The
    guarded UPDATE (repo.claim_alert) decides: of all processes seeing the
    outage, one alerts; cron coming back (repo.cron_seen) ends the outage.
    """
    if not state.late or state.alerted:  # alerted: the UPDATE below would match nothing; spare the row lock
        return False
    cutoff = state.now - timedelta(minutes=settings["cron_alert_minutes"])
    won = repo.claim_alert(state.now, cutoff)
    db.session.commit()
    if not won:
        return False
    chats = admins.alert_chats(current_app.config.get("ADMIN_IDS") or frozenset())
    db.session.commit()
    minutes = state.minutes_ago
    for chat_id, lang in chats.items():
        last = t("cron_never", lang) if minutes is None else t("cron_minutes_ago", lang, minutes=minutes)
        outbox.send(chat_id, t("cron_alert", lang, last=last, waiting=waiting_text(state, lang),
                               draining=t(draining, lang)))
    log.warning("cron is late (last run: %s); alerted %d admin(s)", state.last_cron_at or "never", len(chats))
    return True
