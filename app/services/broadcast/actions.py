"""Unsend or edit a finished broadcast: an action job over its ledger, run by the same pump.

An action job is a new job row (kind 'unsend' or 'edit', source_job_id) whose
items are the source's sent items with their message_id, copied in one
INSERT ... SELECT (app.repository.broadcast_items.populate_action). It then
queues like any job, so lease, fence, budget, progress, pause/cancel and crash
safety are the pump's. A source still queued, running, paused or scheduled is
refused (cancel or wait for it first); so is an unsend once every copy is
older than Telegram's 48 hours.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from app.clock import utcnow
from app.extensions import db
from app.models.broadcast import (
    ACTION_KINDS,
    CONTENT_ALBUM,
    CONTENT_COPY,
    CONTENT_TEXT,
    KIND_EDIT,
    KIND_SEND,
    KIND_UNSEND,
    TERMINAL,
    BroadcastJob,
)
from app.repository import broadcast_items as items
from app.repository import broadcast_jobs as jobs_repo
from app.services import audit
from app.services.broadcast import jobs, text_rules

log = logging.getLogger(__name__)
# Telegram lets a bot delete its messages in private chats for this long.
DELETE_WINDOW = timedelta(hours=48)
# The columns an action job copies from its source: what was sent, so the pump knows how to act on it.
COPIED = ("audience", "audience_langs", "audience_active_days", "audience_joined_days", "content_type",
          "from_chat_id", "source_message_id", "source_message_ids", "parse_mode", "button_text", "button_url")


class NotActionable(ValueError):
    """The source job does not exist, is not a finished broadcast, or has no copy left to act on."""


def unsend_job(job_id: int, *, actor: str | None = None, created_by: int | None = None,
               progress_chat_id: int | None = None, lang: str = "fa", settings: dict | None = None) -> BroadcastJob:
    """Create and queue the job that deletes every delivered copy of a finished broadcast; return it."""
    return _create(job_id, KIND_UNSEND, None, actor, created_by, progress_chat_id, lang, settings)


def edit_job(job_id: int, text: str, *, actor: str | None = None, created_by: int | None = None,
             progress_chat_id: int | None = None, lang: str = "fa", settings: dict | None = None) -> BroadcastJob:
    """Create and queue the job that replaces the text (or caption) of every delivered copy; return it."""
    return _create(job_id, KIND_EDIT, text, actor, created_by, progress_chat_id, lang, settings)


def edit_limit(source: BroadcastJob) -> int:
    """Return the longest new text an edit of this job takes (a caption for media, else a text)."""
    return text_rules.TEXT_LIMIT if source.content_type == CONTENT_TEXT else text_rules.CAPTION_LIMIT


def check_source(source: BroadcastJob | None, kind: str, now=None) -> None:
    """Raise NotActionable unless the job can be unsent / edited now (read-only, for buttons and CLI)."""
    if source is None:
        raise NotActionable("no such broadcast job")
    if source.kind != KIND_SEND:
        raise NotActionable(f"job {source.id} is itself an {source.kind} job")
    if source.status not in TERMINAL:
        raise NotActionable(f"job {source.id} is {source.status}; only a completed or cancelled job can be "
                            f"unsent or edited (wait for it, or cancel it first)")
    count, newest = items.sent_window(source.id)
    if count == 0:
        raise NotActionable(f"job {source.id} has no delivered copy with a known message id")
    if kind == KIND_UNSEND and newest is not None and newest < (now or utcnow()) - DELETE_WINDOW:
        raise NotActionable(f"every copy of job {source.id} is older than 48 hours: Telegram no longer "
                            f"lets the bot delete them")


def _check_text(source: BroadcastJob, text: str | None) -> str:
    """Return the edit's new text stripped, or raise TextRefused as Telegram would refuse it (HTML, length)."""
    return text_rules.check(text, edit_limit(source), "new text")


def _create(job_id: int, kind: str, text: str | None, actor: str | None, created_by: int | None,
            progress_chat_id: int | None, lang: str, settings: dict | None) -> BroadcastJob:
    """Lock the finished source, check it, copy its sent items into a new action job and queue it."""
    db.session.commit()  # the lock below must be this transaction's first statement
    locked = jobs_repo.lock_finished(job_id)
    source = db.session.get(BroadcastJob, job_id)
    if source is None:
        db.session.rollback()
        raise NotActionable(f"no broadcast job {job_id}")
    try:
        check_source(source, kind)  # also says why an unlocked (unfinished) source is refused
        if not locked:
            raise NotActionable(f"job {job_id} is {source.status}; it cannot be unsent or edited now")
        if kind == KIND_EDIT:
            if source.content_type not in (CONTENT_TEXT, CONTENT_COPY, CONTENT_ALBUM):
                raise NotActionable(f"job {job_id} has no text or caption to edit")
            text = _check_text(source, text)
    except ValueError:
        db.session.rollback()
        raise
    job = jobs.insert_draft(settings, **{name: getattr(source, name) for name in COPIED}, kind=kind,
                            source_job_id=job_id, text=text, created_by=created_by,
                            progress_chat_id=progress_chat_id, progress_lang=lang, created_at=utcnow())
    # An action is never a paid broadcast: deletes and edits take no paid option.
    job.paid, job.paid_limit = False, None
    total = items.populate_action(job.id, job_id)
    action = audit.UNSENT if kind == KIND_UNSEND else audit.EDITED
    audit.record(actor, action, job_id, f"as job {job.id}: total={total}")
    jobs.queue_populated(job, total, actor, action, f"of job {job_id}: total={total}")
    log.info("broadcast job %s %ss job %s: %s copies", job.id, kind, job_id, total)
    return job


__all__ = ["ACTION_KINDS", "NotActionable", "check_source", "edit_job", "edit_limit", "unsend_job"]
