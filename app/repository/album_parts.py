"""Album parts rows: insert-if-absent per part, read a group's ids, prune old groups."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select, tuple_

from app.extensions import db
from app.models.album_part import ANSWERED_MARKER, AlbumPart
from app.repository.inserts import ignoring_duplicates


def insert_ignore(admin_id: int, media_group_id: str, message_id: int, chat_id: int, now: datetime) -> bool:
    """Insert one row unless it exists; True when this call inserted it.

    Safe under two concurrent callers: the primary key refuses the second row,
    and INSERT IGNORE / OR IGNORE turns that refusal into "0 rows". On MySQL
    the second insert of the same key waits for the first transaction, then
    sees its row (ignored) or, if it rolled back, inserts its own; SQLite runs
    writers one at a time.
    """
    stmt = ignoring_duplicates(insert(AlbumPart).values(admin_id=admin_id, media_group_id=media_group_id,
                                                        message_id=message_id, chat_id=chat_id, created_at=now))
    return db.session.execute(stmt).rowcount == 1


def part_ids(admin_id: int, media_group_id: str) -> list[int]:
    """Return the album's gathered message ids, ascending (the marker row excluded)."""
    stmt = (
        select(AlbumPart.message_id)
        .where(AlbumPart.admin_id == admin_id, AlbumPart.media_group_id == media_group_id,
               AlbumPart.message_id != ANSWERED_MARKER)
        .order_by(AlbumPart.message_id)
    )
    return list(db.session.execute(stmt).scalars())


def delete_all_older_than(cutoff: datetime, limit: int | None = None) -> int:
    """Delete every row created before cutoff (at most limit of them); return how many."""
    stmt = delete(AlbumPart).where(AlbumPart.created_at < cutoff)
    if limit is not None:
        A = AlbumPart  # noqa: N806
        keys = select(A.admin_id, A.media_group_id, A.message_id).where(A.created_at < cutoff).limit(limit)
        found = [tuple(r) for r in db.session.execute(keys)]
        if not found:
            return 0
        stmt = delete(A).where(tuple_(A.admin_id, A.media_group_id, A.message_id).in_(found))
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def delete_older_than(admin_id: int, cutoff: datetime) -> int:
    """Delete an admin's rows created before cutoff; return how many."""
    stmt = delete(AlbumPart).where(AlbumPart.admin_id == admin_id, AlbumPart.created_at < cutoff)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount
