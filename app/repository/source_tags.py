"""The deep-link map: which tag a /start payload gives."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select

from app.extensions import db
from app.models.user_data import SourceTag


def tag_for(source: str) -> str | None:
    """Return the tag a source gives, or None (one primary-key read)."""
    return db.session.execute(select(SourceTag.tag).where(SourceTag.source == source)).scalar_one_or_none()


def put(source: str, tag: str, now: datetime) -> str | None:
    """Map source to tag, replacing its old tag; return the old tag (None when new)."""
    row = db.session.get(SourceTag, source)
    if row is None:
        db.session.add(SourceTag(source=source, tag=tag, created_at=now))
        return None
    old, row.tag, row.created_at = row.tag, tag, now
    return old


def remove(source: str) -> bool:
    """Forget a source's tag; True when there was one."""
    return db.session.execute(delete(SourceTag).where(SourceTag.source == source)).rowcount > 0


def all_pairs() -> list[tuple[str, str]]:
    """Return every (source, tag), by source."""
    return [tuple(row) for row in db.session.execute(select(SourceTag.source, SourceTag.tag)
                                                     .order_by(SourceTag.source))]
