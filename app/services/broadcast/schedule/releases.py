"""Scheduled broadcasts: release the due ones, put missed ones to the admins, re-time, send now.

Every "is it due" decision reads the database's clock (several processes and
servers run cron; their own clocks may disagree). A schedule missed by more
than schedule_grace_minutes (the site was down) is never sent late on its
own: it stays 'scheduled' with missed_at set, and every admin is asked once
whether to send it now or cancel it.
"""
from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from flask import current_app
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.extensions import db
from app.models.broadcast import SCHEDULED, BroadcastJob
from app.repository import broadcast_schedule as repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import admins, audit
from app.services.broadcast.jobs import control
from app.services.broadcast.schedule.send_time import check_future, describe
from app.texts import t

log = logging.getLogger(__name__)
# The question to the admins gets at most this long inside a cron call.
ASK_FLUSH_SECONDS = 5.0


def grace(settings: dict) -> timedelta:
    """Return how late a schedule may still start on its own."""
    return timedelta(minutes=settings["schedule_grace_minutes"])


def start_due(settings: dict) -> int:
    """Queue every scheduled job whose time has come (not missed); return how many."""
    n = in_transaction(lambda: repo.release_due(db_utcnow(), grace(settings)))
    if n:
        log.info("%s scheduled broadcast job(s) are due and queued", n)
    return n


def seconds_until_due(settings: dict) -> float | None:
    """Return seconds until the next scheduled job is due (0 when already due), None if none waits."""
    now = db_utcnow()
    send_at = repo.next_send_at(now - grace(settings))
    db.session.commit()
    return None if send_at is None else max((send_at - now).total_seconds(), 0.0)


def ask_about_missed(settings: dict, *, client=None) -> list[int]:
    """Flag each newly missed job once and ask every admin: send now, or cancel? Return the jobs asked about."""
    now = db_utcnow()
    asked = []
    for job_id in repo.missed_ids(now, grace(settings)):
        # Committed before the question goes out: of several cron processes, one asks.
        if in_transaction(lambda job_id=job_id: repo.mark_missed(job_id, now, grace(settings))):
            asked.append(job_id)
    if asked:
        _send_questions(asked, settings, client)
    return asked


def _send_questions(job_ids: list[int], settings: dict, client) -> None:
    """Send every admin one question per missed job (best effort: the job waits either way)."""
    from app.services.telegram_factory import get_client, new_outbox

    # The same admins, languages and blocked-bot rule as every other alert.
    chats = admins.alert_chats(current_app.config.get("ADMIN_IDS") or frozenset())
    found = [db.session.get(BroadcastJob, job_id) for job_id in job_ids]
    missed = [(job.id, job.send_at, job.audience, job.total_count) for job in found if job is not None]
    db.session.commit()
    outbox = new_outbox(client or get_client(settings))
    for job_id, send_at, audience, total in missed:
        log.warning("scheduled broadcast job %s missed its time %s; asking %s admin(s)", job_id, send_at,
                    len(chats))
        for admin_id, lang in chats.items():
            outbox.send(admin_id, t("sched_missed_ask", lang, id=job_id, when=describe(send_at, lang),
                                    audience=t(f"aud_name_{audience}", lang), count=total),
                        reply_markup=missed_keyboard(job_id, lang))
    outbox.close(deadline=time.monotonic() + ASK_FLUSH_SECONDS)


def missed_keyboard(job_id: int, lang: str) -> InlineKeyboardMarkup:
    """Return the question's buttons: send now / cancel, bound to the job."""
    return InlineKeyboardMarkup([
        [InlineKeyboardButton(t("btn_send_now", lang), callback_data=f"w.send_now:{job_id}")],
        [InlineKeyboardButton(t("btn_cancel_job", lang), callback_data=f"w.cancel_job:{job_id}")],
    ])


def send_now(job_id: int, actor: str | None = None) -> bool:
    """Queue a scheduled (e.g. missed) job at once, audited; it runs when no other job sends."""
    ok = repo.release_now(job_id)
    if ok:  # in the release's own transaction: a refused or rolled-back release leaves no entry
        audit.record(actor, audit.SENT_NOW, job_id, f"queued_at={db_utcnow():%Y-%m-%dT%H:%M:%SZ}")
    db.session.commit()
    if ok:
        log.info("scheduled broadcast job %s released by an admin", job_id)
        control.start_next_if_idle()
    return ok


def reschedule(job_id: int, send_at: datetime, actor: str | None = None) -> bool:
    """Give a scheduled job a new send time (ahead on the database's clock), audited; False once it has started."""
    send_at = check_future(send_at, db_utcnow())
    ok = repo.retime(job_id, send_at)
    if ok:
        audit.record(actor, audit.RESCHEDULED, job_id, f"send_at={send_at:%Y-%m-%dT%H:%M:%SZ}")
    db.session.commit()
    return ok


def scheduled_jobs(limit: int) -> list[BroadcastJob]:
    """Return the jobs waiting for their time, soonest first."""
    return repo.scheduled_jobs(limit)


def is_scheduled(job: BroadcastJob | None) -> bool:
    """Tell whether a job still waits for its time."""
    return job is not None and job.status == SCHEDULED
