"""processed_updates rows: which webhook update ids were already handled."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select

from app.extensions import db
from app.models.processed_update import ProcessedUpdate

P = ProcessedUpdate


def insert_update(update_id: int, now: datetime) -> None:
    """Insert the id; a duplicate raises IntegrityError.

    Safe under concurrent deliveries: the primary key admits one row. On MySQL a
    second insert of the same id blocks until the first transaction ends, then
    fails (or succeeds if the first rolled back); SQLite serialises writers.
    """
    db.session.execute(insert(P).values(update_id=update_id, processed_at=now))


def exists(update_id: int) -> bool:
    """Tell whether the id is recorded (as seen by this transaction)."""
    return db.session.execute(select(P.update_id).where(P.update_id == update_id)).first() is not None


def delete_older_than(cutoff: datetime, limit: int | None = None) -> int:
    """Delete ids processed before cutoff (at most limit of them: one short statement); return how many."""
    if limit is None:
        return db.session.execute(delete(P).where(P.processed_at < cutoff)).rowcount
    ids = select(P.update_id).where(P.processed_at < cutoff).limit(limit)
    found = [r[0] for r in db.session.execute(ids)]
    if not found:
        return 0
    return db.session.execute(delete(P).where(P.update_id.in_(found))
                              .execution_options(synchronize_session=False)).rowcount
