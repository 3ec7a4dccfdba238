"""Saved segments: read, save (insert or replace) and delete rows of `segments`, and what a rule names."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.models.segment import Segment
from app.models.user_data import UserField, UserTag


def by_name(name: str) -> Segment | None:
    """Return the segment of this exact name (byte for byte), or None."""
    return db.session.execute(select(Segment).where(Segment.name == name)).scalar_one_or_none()


def by_id(segment_id: int) -> Segment | None:
    """Return the segment with this id, or None (deleted since a button showed it)."""
    return db.session.get(Segment, segment_id)


def all_segments(limit: int | None = None, offset: int = 0) -> list[Segment]:
    """Return segments by name."""
    query = select(Segment).order_by(Segment.name).offset(offset)
    return list(db.session.execute(query.limit(limit) if limit else query).scalars())


def count_segments() -> int:
    """Count the saved segments."""
    return db.session.execute(select(func.count()).select_from(Segment)).scalar_one()


def insert(name: str, rule: str, created_by: int | None, now: datetime) -> Segment | None:
    """Insert a new segment; None when the name is taken (by a concurrent save too: the unique key decides)."""
    segment = Segment(name=name, rule=rule, created_by=created_by, created_at=now, updated_at=now)
    try:
        with db.session.begin_nested():
            db.session.add(segment)
    except IntegrityError:
        return None
    return segment


def replace_rule(segment: Segment, rule: str, now: datetime) -> None:
    """Give an existing segment a new rule (jobs keep the copy they made: nothing else changes)."""
    segment.rule, segment.updated_at = rule, now


def delete_named(name: str) -> bool:
    """Delete the segment of this name; False when there is none."""
    return db.session.execute(delete(Segment).where(Segment.name == name)).rowcount > 0


def tags_without_users(tags: tuple[str, ...]) -> list[str]:
    """Return the tags no user has (each one probe of the (tag, user_id) index)."""
    return [t for t in tags if db.session.execute(select(UserTag.user_id).where(UserTag.tag == t).limit(1))
            .first() is None]


def fields_without_users(names: tuple[str, ...]) -> list[str]:
    """Return the field names no user has (each one probe of the (name, value, user_id) index)."""
    return [n for n in names if db.session.execute(select(UserField.user_id).where(UserField.name == n).limit(1))
            .first() is None]


def jobs_named(job_ids: tuple[int, ...]) -> dict[int, object]:
    """Return {job id: its kind, links_tracked and clicks_unique} for the jobs among job_ids that exist."""
    rows = db.session.execute(select(BroadcastJob.id, BroadcastJob.kind, BroadcastJob.links_tracked,
                                     BroadcastJob.clicks_unique).where(BroadcastJob.id.in_(job_ids)))
    return {row.id: row for row in rows}
