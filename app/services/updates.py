"""Webhook idempotency: record handled update ids, and purge old ones."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError

from app.clock import utcnow
from app.extensions import db
from app.repository import updates as repo


def claim_update(update_id: int, now: datetime | None = None) -> None:
    """Insert the id inside the caller's transaction; IntegrityError means a duplicate."""
    repo.insert_update(update_id, now or utcnow())
    db.session.flush()


def ensure_claimed(update_id: int, now: datetime | None = None) -> None:
    """Insert the id unless the transaction already holds it (a handler may have committed or rolled back)."""
    if not repo.exists(update_id):
        repo.insert_update(update_id, now or utcnow())


def record_alone(update_id: int, now: datetime | None = None) -> None:
    """Record the id in its own transaction after a failed handler; a concurrent copy is fine."""
    try:
        ensure_claimed(update_id, now)
        db.session.commit()
    except IntegrityError:
        # Another delivery of the same update recorded it meanwhile.
        db.session.rollback()


PURGE_CHUNK = 5_000  # ids per short transaction


def purge_processed_updates(older_than_days: int, now: datetime | None = None, max_rows: int | None = None) -> int:
    """Delete ids handled more than N days ago, PURGE_CHUNK per transaction, at most max_rows; return how many.

    Telegram redelivers for at most about a day, so a week of ids is ample.
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must be >= 0")
    cutoff = (now or utcnow()) - timedelta(days=older_than_days)
    removed = 0
    while max_rows is None or removed < max_rows:
        limit = PURGE_CHUNK if max_rows is None else min(PURGE_CHUNK, max_rows - removed)
        n = repo.delete_older_than(cutoff, limit)
        db.session.commit()
        removed += n
        if n < limit:
            break
    return removed
