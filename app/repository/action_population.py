"""Items of the actions that read more than "every copy still there": an expiry pass, an unpin."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import case, func, insert, literal, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models.broadcast import GONE, PENDING, SENT, TOO_OLD, BroadcastJobItem
from app.repository.broadcast_population import copies_where

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)
TOO_OLD_ERROR = "older than 48 hours when the expiry reached it: never attempted"
UNSENT_ERROR = "deleted by an unsend before this unpin: nothing to unpin"
COLUMNS = ["job_id", "user_id", "status", "error", "message_id", "message_ids", "variant"]


def populate_expiry(job_id: int, source_ids: list[int], deleted_by: list[int], sent_upto: datetime,
                    too_old_before: datetime) -> tuple[int, int]:
    """Insert an expiry pass's items: copies sent by sent_upto; (items, of them too_old).

    A copy sent before too_old_before would be past Telegram's 48 hours when
    the pass reaches it: it is written too_old at once, never attempted.
    """
    where = [*copies_where(list(source_ids), list(deleted_by)), I.sent_at <= sent_upto]
    old = I.sent_at < too_old_before
    rows = (select(literal(job_id), I.user_id, case((old, literal(TOO_OLD)), else_=literal(PENDING)),
                   case((old, literal(TOO_OLD_ERROR)), else_=None), I.message_id, I.message_ids, I.variant)
            .where(*where).order_by(I.id))
    db.session.execute(insert(I).from_select(COLUMNS, rows))
    return _counts(job_id, TOO_OLD)


def remaining_after(source_ids: list[int], deleted_by: list[int], cutoff: datetime) -> datetime | None:
    """Return the oldest sent_at of the copies still there that were sent after cutoff (None: none)."""
    where = [*copies_where(list(source_ids), list(deleted_by)), I.sent_at > cutoff]
    return db.session.execute(select(func.min(I.sent_at)).where(*where)).scalar()


def populate_unpin(job_id: int, pin_job_id: int, deleted_by: list[int]) -> tuple[int, int]:
    """Insert an unpin's items: the copies the pin pinned; (items, of them gone).

    A pinned copy an unsend deleted since is written gone at once (Telegram
    unpins a deleted message itself): counted, never attempted.
    """
    pinned = [I.job_id == pin_job_id, I.status == SENT, I.message_id.is_not(None)]
    deleted = literal(False)
    if deleted_by:
        done = aliased(I)
        deleted = select(done.id).where(done.job_id.in_(deleted_by), done.user_id == I.user_id,
                                        done.message_id == I.message_id, done.status.in_((SENT, GONE))).exists()
    rows = (select(literal(job_id), I.user_id, case((deleted, literal(GONE)), else_=literal(PENDING)),
                   case((deleted, literal(UNSENT_ERROR)), else_=None), I.message_id, I.message_ids, I.variant)
            .where(*pinned).order_by(I.id))
    db.session.execute(insert(I).from_select(COLUMNS, rows))
    return _counts(job_id, GONE)


def _counts(job_id: int, status: str) -> tuple[int, int]:
    """Return (the job's items, of them in status)."""
    row = db.session.execute(select(func.count(), func.coalesce(func.sum(case((I.status == status, 1), else_=0)), 0))
                             .where(I.job_id == job_id)).one()
    return int(row[0]), int(row[1])
