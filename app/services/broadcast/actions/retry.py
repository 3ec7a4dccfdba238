"""Retry a job: a new job, built from its ledger, for the recipients its message did not reach.

Which items come back (one INSERT ... SELECT, app.repository.broadcast_population.populate_retry):
  failed                  always (Telegram refused the message, not the recipient)
  pending                 what a cancelled (or paused, see below) job left unsent
  unknown                 only when asked: some of them did get it and get a second copy
  sent, skipped, sending  never (skipped: the user blocked the bot or is gone;
                          sending: still in flight, its outcome is recorded later)

A paused job is cancelled by its retry, in the same transaction, so its
pending items go out once, from the new job, and a later resume is refused.
A completed or cancelled job is retried as it is; a queued or running one is
refused (pause or cancel it first). Users that another retry of the same job
already holds are left out, so retrying twice never sends twice.

A retry locks its chain's root first, as unsend and edit do
(app.services.broadcast.actions.lineage), so it never slips past one of them; it is
refused while an unsend or edit of the chain is open, and once the
broadcast was unsent (it would send the deleted message again).
"""
from __future__ import annotations

import logging

from app.extensions import db
from app.models.broadcast import COMPLETED, ITEM_FAILED, KIND_SEND, KIND_UNSEND, PAUSED, PENDING, UNKNOWN, BroadcastJob
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_population as population
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.actions import lineage
from app.services.broadcast.jobs import creation

log = logging.getLogger(__name__)
# The job columns a retry copies: its content, its audience as shown, its send options.
COPIED = ("audience", "audience_langs", "audience_active_days", "audience_joined_days", "audience_sources",
          "audience_rule",
          "content_type", "from_chat_id", "source_message_id", "source_message_ids", "text", "variants", "parse_mode",
          "button_text", "button_url", "silent", "protect", "optout_button", "urgent", "tap_text", "tap_tag",
          "tap_answer", "keyboard", "ab_content")


class NotRetryable(ValueError):
    """The job does not exist or is queued/running."""


class NothingToRetry(ValueError):
    """The job's ledger holds nobody to send to again."""


def retry_job(job_id: int, *, include_unknown: bool = False, actor: str | None = None,
              created_by: int | None = None, progress_chat_id: int | None = None, lang: str = "fa",
              settings: dict | None = None, paid: bool | None = None) -> BroadcastJob:
    """Create and queue the retry of a completed, cancelled or paused job; return the new job.

    paid: what the admin confirmed on the retry's pre-send screen; None takes
    the setting now (the CLI's explicit `broadcast retry`).
    """
    job = db.session.get(BroadcastJob, job_id)
    if job is not None and job.kind != KIND_SEND:
        db.session.rollback()
        raise NotRetryable(f"job {job_id} is an {job.kind} job; only a broadcast can be retried")
    # The chain's root first (every retry and action of the chain takes it), then the job itself.
    lineage.lock(job_id)
    was = jobs_repo.lock_for_retry(job_id, db_utcnow())
    if was is None:
        job = db.session.get(BroadcastJob, job_id)
        state = job.status if job else None
        db.session.rollback()
        raise NotRetryable(f"job {job_id} is {state}; only a completed, cancelled or paused job can be retried"
                           if state else f"no broadcast job {job_id}")
    reason = blocker(job_id)
    if reason is not None:
        db.session.rollback()
        raise NotRetryable(reason)
    source = db.session.get(BroadcastJob, job_id)
    statuses = (ITEM_FAILED, PENDING, UNKNOWN) if include_unknown else (ITEM_FAILED, PENDING)
    job = creation.insert_draft(settings, **{name: getattr(source, name) for name in COPIED}, retry_of=job_id,
                            created_by=created_by, progress_chat_id=progress_chat_id, progress_lang=lang,
                            created_at=db_utcnow())
    if paid is not None:
        creation.set_paid(job, paid, settings)
    total = population.populate_retry(job.id, job_id, statuses)
    if total == 0:
        db.session.rollback()  # a paused job stays paused: nothing was retried
        raise NothingToRetry(f"job {job_id} has nobody left to send to again")
    kinds = "+".join(statuses)
    if was == PAUSED:
        audit.record(actor, audit.CANCELLED, job_id, f"to retry it as job {job.id}")
    detail = f"as job {job.id}: {kinds} total={total}" + (" paid" if job.paid else "")
    audit.record(actor, audit.RETRIED, job_id, detail)
    creation.queue_populated(job, total, actor, audit.RETRIED, f"of job {job_id}: {kinds} total={total}")
    log.info("broadcast job %s retries job %s: %s items (%s)", job.id, job_id, total, kinds)
    return job


def blocker(job_id: int) -> str | None:
    """Return why the chain may not be retried now (an unsend or edit open, or it was unsent), or None."""
    chain = lineage.family(job_id) + lineage.ancestors(job_id)
    acting = jobs_repo.actions_on(chain)
    if acting:
        return f"job {acting[0][0]} {acting[0][1]}s this broadcast now; wait for it, or cancel it first"
    unsent = [j for j, _, status in jobs_repo.actions_on(chain, KIND_UNSEND, open_only=False) if status == COMPLETED]
    if unsent:
        return f"job {unsent[-1]} deleted this broadcast from every chat; a retry would send it again"
    return None


def candidates(job_id: int) -> dict[str, int]:
    """Count whom a retry would reach now: {"failed", "not_sent", "unknown"} (the screen's and buttons' numbers).

    Pending items of an ended (cancelled) or paused job were never sent: "not
    sent", never "failed". The ledger's own WHERE decides, as at retry time.
    """
    found = population.retry_candidates(job_id, (ITEM_FAILED, PENDING, UNKNOWN))
    db.session.commit()
    return {"failed": found.get(ITEM_FAILED, 0), "not_sent": found.get(PENDING, 0), "unknown": found.get(UNKNOWN, 0)}
