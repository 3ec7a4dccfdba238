"""Alerts every admin gets about a job: an automatic pause, and the final summary.

An automated job reports less (app.services.broadcast.jobs.origin): a drip
chain's step job sends no summary and no picture (its numbers are in /chains
and the chains' daily digest), a recurring occurrence's sends one short line
with its picture behind a button, and neither tells of a quiet-hours pause
(it resumes on its own). A pause that waits for an admin is told for any job.

The caller sends them only after winning the guarded UPDATE that made the
change (jobs_repo.pause / complete_if_done matched its row), so two processes
that reach the same job never both alert. Each alert is one outbox send per
chat: reply priority, counted against the bot-wide budget like any reply.
"""
from __future__ import annotations

from flask import current_app

from app.extensions import db
from app.models.broadcast import PAUSED, QUIET_PAUSE, BroadcastJob
from app.services import admins
from app.services.broadcast.jobs.origin import CHAIN, origin_of
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting import picture
from app.services.broadcast.reporting.occurrence_summary import occurrence_keyboard, occurrence_text
from app.services.broadcast.reporting.progress import progress_keyboard, stars_line, summary_keyboard, summary_text
from app.texts import t


def recipients(job: BroadcastJob) -> dict[int, str]:
    """Return {chat: language}: every admin, plus the job's own chat (its author) in the job's language."""
    chats = admins.alert_chats(current_app.config.get("ADMIN_IDS") or frozenset())
    own = job.progress_chat_id or job.created_by
    if own:
        chats[own] = job.progress_lang or chats.get(own) or "fa"
    return chats


def job_paused(job_id: int, reason: str, *, outbox) -> None:
    """Tell every admin the engine paused the job, with a resume button (quiet hours: it resumes on its own)."""
    job = db.session.get(BroadcastJob, job_id)
    chats = recipients(job) if job else {}
    quiet = job is not None and job.pause_kind == QUIET_PAUSE
    if quiet and origin_of(job) is not None:
        chats = {}  # an automated job resumes on its own after quiet hours: nothing to tell
    db.session.commit()  # no transaction stays open across the sends
    for chat_id, lang in chats.items():
        text = t("quiet_paused_alert" if quiet else "paused_alert", lang, id=job_id, reason=reason)
        outbox.send(chat_id, text, reply_markup=None if quiet else progress_keyboard(job_id, PAUSED, lang))


def job_finished(job_id: int, *, outbox) -> None:
    """Send every admin the summary; in the job's own chat it replaces the progress message."""
    job = db.session.get(BroadcastJob, job_id)
    if job is None:
        db.session.commit()
        return
    origin = origin_of(job)
    if origin is not None and origin.kind == CHAIN:
        db.session.commit()
        return  # a chain step's numbers live in /chains and the daily digest
    status, own, message_id = job_status(job), job.progress_chat_id, job.progress_message_id
    chats = recipients(job)
    db.session.commit()
    if origin is not None:  # a recurring occurrence: one short line, its picture when asked for
        for chat_id, lang in chats.items():
            outbox.send(chat_id, occurrence_text(status, origin.of, lang),
                        reply_markup=occurrence_keyboard(status, lang))
        return
    sends = [outbox.send(chat_id, summary_text(status, lang), reply_markup=summary_keyboard(status, lang),
                         replace_message_id=message_id if chat_id == own else None)
             for chat_id, lang in chats.items()]
    if status.sent and not status.is_action and current_app.config.get("RESULTS_PICTURE", True):
        # Drawn on the picture thread and sent after the summaries; if it fails they have gone anyway.
        picture.queue(job_id, chats, after=sends)


def job_stars_spent(job_id: int, *, outbox) -> None:
    """Tell every admin what an ended paid job cost as Telegram's balance showed it, beside our estimate.

    The summary goes out as the job completes, before its balance is read
    again; this line follows it once the spend is known.
    """
    job = db.session.get(BroadcastJob, job_id)
    # An automated job (chain step, recurring occurrence) sends no extra line: its spend is in its job view.
    chats = recipients(job) if job and origin_of(job) is None else {}
    status = job_status(job) if job else None
    db.session.commit()
    for chat_id, lang in chats.items():
        outbox.send(chat_id, t("stars_spent_alert", lang, id=job_id, line=stars_line(status, lang)))
