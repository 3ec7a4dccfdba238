"""Pin or unpin a finished broadcast's copies for everyone: an action job over its ledger, run by the same pump.

A pin job (kind 'pin') holds one item per copy still there (the broadcast and
its retries, less what an unsend deleted), made and gated like an unsend
(app.services.broadcast.actions.unsend_edit.check_source: finished, nothing
in flight or still landing, one action of the chain at a time). Each item is
one pinChatMessage on the copy's first message (an album's first part),
silent unless the admin asked for a notification. A pin is not safe to
repeat (a second "pinned" notice), so a lost answer is 'unknown', never sent
again. An unpin job (kind 'unpin') acts on the copies the last pin pinned;
one an unsend deleted since is counted gone without a call. The chain's pin
state is its newest pin or unpin job: pin only when nothing is pinned, unpin
only after a pin.
"""
from __future__ import annotations

import logging

from app.extensions import db
from app.models.broadcast import KIND_PIN, KIND_SEND, KIND_UNPIN, BroadcastJob
from app.repository import action_population
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_population as population
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.actions import lineage
from app.services.broadcast.actions.unsend_edit import COPIED, NotActionable, check_source, covered
from app.services.broadcast.jobs import creation, purge

log = logging.getLogger(__name__)


def last_pin(source_id: int) -> tuple[int, str, str] | None:
    """Return (id, kind, status) of the chain's newest pin or unpin job, or None if it has none."""
    above = lineage.family(source_id) + lineage.ancestors(source_id)
    rows = [row for row in jobs_repo.actions_on(above, open_only=False) if row[1] in (KIND_PIN, KIND_UNPIN)]
    return rows[-1] if rows else None


def check_pin(source: BroadcastJob | None, kind: str) -> int:
    """Raise NotActionable unless the broadcast can be pinned / unpinned now; return the copies it would act on.

    The pin state is checked first: it is final, while check_source may only
    say "wait a few seconds" (copies landing), which a view still offers.
    """
    pinned = _pin_state(source, kind) if source is not None and source.kind == KIND_SEND else None
    count = check_source(source, kind)
    return pinned if pinned is not None else count


def _pin_state(source: BroadcastJob, kind: str) -> int | None:
    """Raise NotActionable when the chain's pin state refuses the action; an unpin's copies (None for a pin)."""
    last = last_pin(source.id)
    if kind == KIND_PIN and last is not None and last[1] == KIND_PIN:
        raise NotActionable(f"job {source.id} is pinned already (job {last[0]}); unpin it first",
                            "pin_already", id=source.id, job=last[0])
    if kind == KIND_UNPIN and (last is None or last[1] != KIND_PIN):
        raise NotActionable(f"job {source.id} has no pin to remove (pin it first)", "unpin_nothing", id=source.id)
    if kind == KIND_UNPIN:
        pin = db.session.get(BroadcastJob, last[0])
        if pin.sent_count == 0:
            raise NotActionable(f"the pin of job {source.id} (job {pin.id}) pinned no copy; nothing to unpin",
                                "unpin_nothing", id=source.id)
        return pin.sent_count
    return None


def pin_job(job_id: int, *, notify: bool = False, **who) -> BroadcastJob:
    """Create and queue the job that pins every copy still there (silently unless notify); return it."""
    return _create(job_id, KIND_PIN, notify, **who)


def unpin_job(job_id: int, **who) -> BroadcastJob:
    """Create and queue the job that unpins every copy the last pin pinned; return it."""
    return _create(job_id, KIND_UNPIN, False, **who)


def _create(job_id: int, kind: str, notify: bool, actor: str | None = None, created_by: int | None = None,
            progress_chat_id: int | None = None, lang: str = "fa", settings: dict | None = None) -> BroadcastJob:
    """Lock the chain, check it, copy the copies into a new pin or unpin job and queue it."""
    db.session.rollback()
    purge.expire_stopped_orphans()  # a dead pump's in-flight sends are settled first (as cron does)
    locked = lineage.lock(job_id)  # first statement: every action and retry of the chain waits here
    source = db.session.get(BroadcastJob, job_id)
    try:
        if not locked or source is None:
            raise NotActionable(f"no broadcast job {job_id}", "cb_unknown_job")
        check_pin(source, kind)
        pinned_by = last_pin(job_id)[0] if kind == KIND_UNPIN else None  # read before the new job is a row
    except ValueError:
        db.session.rollback()
        raise
    job = creation.insert_draft(settings, **{name: getattr(source, name) for name in COPIED}, kind=kind,
                                source_job_id=job_id, created_by=created_by, progress_chat_id=progress_chat_id,
                                progress_lang=lang, created_at=db_utcnow())
    # Pins take no paid option; silent is the pin's own choice (disable_notification), not the send's.
    job.paid, job.paid_limit, job.silent, job.protect = False, None, not notify, False
    scope, deleted = covered(job_id)
    if kind == KIND_PIN:
        total = population.populate_action(job.id, scope, deleted)
        detail = f"as job {job.id}: total={total}, {'with a notification' if notify else 'silently'}"
    else:
        total, gone = action_population.populate_unpin(job.id, pinned_by, deleted)
        jobs_repo.add_counts(job.id, gone=gone)
        detail = f"as job {job.id}: total={total} (pinned by job {pinned_by}), gone={gone}"
    action = audit.PINNED if kind == KIND_PIN else audit.UNPINNED
    audit.record(actor, action, job_id, detail)
    creation.queue_populated(job, total, actor, action, f"of job {job_id}: total={total}")
    log.info("broadcast job %s %ss job %s: %s copies", job.id, kind, job_id, total)
    return job


__all__ = ["NotActionable", "check_pin", "last_pin", "pin_job", "unpin_job"]
