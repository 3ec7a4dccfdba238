"""Auto-expiry: delete a broadcast's copies for everyone once each is T old (T <= 47 h), run by cron as unsend jobs.

A send job carries expire_after (T, seconds) and expire_at, when cron next
looks. Each copy's deadline is its own sent_at + T. A due pass (run_due, every
cron call) takes the chain's lock, claims the job with one conditional UPDATE
of expire_at (two crons at once: one matches), and creates one unsend job of
the copies whose deadline has passed; the rest wait for a later pass, at the
oldest remaining deadline but at least PASS_GAP ahead, so a long broadcast
expires in a few passes and no copy is deleted before its T. A pass waits while
the broadcast or a retry still sends, or any action of the chain is open. A
copy that would be past Telegram's 48 hours when the pass reaches it (cron
was missing) is written too_old and never attempted; the pass's summary tells
the admins once.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import select, update

from app.extensions import db
from app.models.broadcast import KIND_SEND, KIND_UNSEND, BroadcastJob
from app.repository import action_population
from app.repository import broadcast_jobs as jobs_repo
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.actions import lineage
from app.services.broadcast.actions.unsend_edit import COPIED, DELETE_WINDOW, NotActionable, check_source, covered
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.expiry_time import check_after, format_after

log = logging.getLogger(__name__)
# A later pass comes at least this long after the one before: a few passes per broadcast, not one per minute.
PASS_GAP = timedelta(minutes=10)
# A copy is written too_old when it would pass 48 hours before the pass could reach it.
REACH_MARGIN = timedelta(minutes=10)
# Refusals that mean "nothing left to expire": the pass clears expire_at instead of waiting.
NOTHING_LEFT = ("act_nothing", "act_all_deleted")
DUE_PER_CALL = 20


def set_expiry(job_id: int, after: timedelta, actor: str | None) -> BroadcastJob:
    """Give a send job (sent, sending or still to send) its expiry T; NotActionable when it cannot take one."""
    check_after(after)
    db.session.rollback()
    job = db.session.get(BroadcastJob, job_id)
    try:
        if job is None:
            raise NotActionable(f"no broadcast job {job_id}", "cb_unknown_job")
        if job.kind != KIND_SEND:
            raise NotActionable(f"job {job_id} is itself an {job.kind} job", "act_is_action", id=job_id)
        if job.started_at is not None and job.started_at + DELETE_WINDOW < db_utcnow():
            raise NotActionable(f"every copy of job {job_id} is older than 48 hours: Telegram no longer lets the "
                                f"bot delete them", "act_too_old", id=job_id)
    except ValueError:
        db.session.rollback()
        raise
    # No copy was sent before the job started (or was created): its first pass cannot be due sooner;
    # the pass itself checks each copy's own deadline.
    job.expire_after, job.expire_at = int(after.total_seconds()), (job.started_at or job.created_at) + after
    audit.record(actor, audit.EXPIRY_SET, job_id, f"after {format_after(after)}")
    db.session.commit()
    return job


def cancel_expiry(job_id: int, actor: str | None) -> bool:
    """Stop a job's auto-expiry before its next pass; False when it had none (a pass already made stays)."""
    db.session.rollback()
    stmt = (update(BroadcastJob).where(BroadcastJob.id == job_id, BroadcastJob.expire_after.is_not(None))
            .values(expire_after=None, expire_at=None).execution_options(synchronize_session=False))
    done = db.session.execute(stmt).rowcount == 1
    if done:
        audit.record(actor, audit.EXPIRY_CANCELLED, job_id, None)
    db.session.commit()
    return done


def run_due(settings: dict | None = None, now: datetime | None = None) -> list[int]:
    """Run every due expiry pass (cron's call); return the unsend jobs created."""
    now = now or db_utcnow()
    due = db.session.execute(select(BroadcastJob.id).where(BroadcastJob.expire_at <= now)
                             .order_by(BroadcastJob.expire_at).limit(DUE_PER_CALL)).scalars().all()
    db.session.commit()
    created = []
    for job_id in due:
        try:
            job = expiry_pass(job_id, settings, now)
        except Exception:  # one broken pass must not stop cron's pump
            db.session.rollback()
            log.exception("expiry pass of job %s failed; cron tries again", job_id)
            continue
        if job is not None:
            created.append(job)
    return created


def expiry_pass(job_id: int, settings: dict | None, now: datetime) -> int | None:
    """Claim a due expiry and create its unsend job of the copies past their T; return its id (None: none now)."""
    locked = lineage.lock(job_id)  # first statement: every action and retry of the chain waits here
    source = db.session.get(BroadcastJob, job_id)
    if not locked or source is None or source.expire_at is None or source.expire_at > now:
        db.session.rollback()
        return None  # another cron's pass claimed it, or it was cancelled
    try:
        check_source(source, KIND_UNSEND, now)
    except NotActionable as refused:
        if refused.key not in NOTHING_LEFT and refused.key != "act_too_old":
            db.session.rollback()
            log.info("expiry of job %s waits: %s", job_id, refused)
            return None  # still sending, landing or another action open: the next cron call looks again
        if refused.key in NOTHING_LEFT:
            _claim(source, None)  # nothing left to delete: this expiry is done
            db.session.commit()
            return None
    after = timedelta(seconds=source.expire_after)
    cutoff = now - after
    scope, deleted = covered(job_id)
    oldest_left = action_population.remaining_after(scope, deleted, cutoff)
    if not _claim(source, None if oldest_left is None else max(oldest_left + after, now + PASS_GAP)):
        db.session.rollback()
        return None
    return _create(source, scope, deleted, cutoff, now, settings)


def _claim(source: BroadcastJob, next_at: datetime | None) -> bool:
    """Move expire_at from the value this pass saw to next_at; False when another pass moved it first."""
    stmt = (update(BroadcastJob).where(BroadcastJob.id == source.id, BroadcastJob.expire_at == source.expire_at)
            .values(expire_at=next_at).execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1


def _create(source: BroadcastJob, scope: list[int], deleted: list[int], cutoff: datetime, now: datetime,
            settings: dict | None) -> int | None:
    """Insert the pass's unsend job (copies sent by cutoff; too old ones written so), queue it; None if it has none."""
    job = creation.insert_draft(settings, **{name: getattr(source, name) for name in COPIED}, kind=KIND_UNSEND,
                                source_job_id=source.id, created_by=None, progress_chat_id=None,
                                progress_lang="fa", created_at=now)
    job.paid, job.paid_limit = False, None
    total, too_old = action_population.populate_expiry(job.id, scope, deleted, cutoff,
                                                       now - DELETE_WINDOW + REACH_MARGIN)
    if total == 0:
        db.session.delete(job)
        db.session.commit()
        return None
    jobs_repo.add_counts(job.id, too_old=too_old)
    detail = f"as job {job.id}: total={total}, too_old={too_old}, sent by {cutoff:%Y-%m-%d %H:%M} UTC"
    audit.record(audit.ACTOR_CRON, audit.EXPIRED, source.id, detail)
    creation.queue_populated(job, total, audit.ACTOR_CRON, audit.EXPIRED, f"of job {source.id}: total={total}")
    log.info("expiry of job %s: unsend job %s over %s copies (%s too old)", source.id, job.id, total, too_old)
    return job.id
