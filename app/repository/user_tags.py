"""Users' tags: bulk add and remove per chunk of ids, one user's tags, tags with their user counts."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, insert, select

from app.extensions import db
from app.models.user import User
from app.models.user_data import UserTag
from app.repository.inserts import ignoring_duplicates


def known_with_tag(tag: str, user_ids: list[int]) -> tuple[set[int], set[int]]:
    """Return (ids that are users, those of them already carrying tag): one SELECT over the chunk."""
    rows = db.session.execute(
        select(User.id, UserTag.user_id).outerjoin(UserTag, (UserTag.user_id == User.id) & (UserTag.tag == tag))
        .where(User.id.in_(user_ids))).all()
    return {row[0] for row in rows}, {row[0] for row in rows if row[1] is not None}


def insert_ignore(tag: str, user_ids: list[int], origin: str, now: datetime) -> int:
    """Tag these users in one multi-row INSERT; return the rows inserted.

    IGNORE makes a row some concurrent writer inserted first a no-op, not an
    error, so two commands tagging the same users both succeed (each counts
    only its own inserts).
    """
    if not user_ids:
        return 0
    stmt = ignoring_duplicates(insert(UserTag).values([{"user_id": uid, "tag": tag, "origin": origin,
                                                        "created_at": now} for uid in user_ids]))
    return db.session.execute(stmt).rowcount


def delete_tag(tag: str, user_ids: list[int]) -> int:
    """Remove tag from these users (one DELETE on the primary key); return the rows removed."""
    if not user_ids:
        return 0
    return db.session.execute(delete(UserTag).where(UserTag.tag == tag, UserTag.user_id.in_(user_ids))
                              .execution_options(synchronize_session=False)).rowcount


def tags_of(user_id: int) -> list[tuple[str, str, datetime]]:
    """Return one user's (tag, origin, created_at), by tag."""
    return [tuple(row) for row in db.session.execute(
        select(UserTag.tag, UserTag.origin, UserTag.created_at).where(UserTag.user_id == user_id)
        .order_by(UserTag.tag))]


def tag_counts() -> list[tuple[str, int]]:
    """Return every tag with its number of users, the largest first (one pass over ix_user_tags_tag)."""
    users = func.count()
    return [(row[0], int(row[1])) for row in db.session.execute(
        select(UserTag.tag, users).group_by(UserTag.tag).order_by(users.desc(), UserTag.tag))]
