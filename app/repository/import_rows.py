"""A CSV import's staging rows, and the statements that apply them to users' tags and fields at once."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, exists, func, insert, literal, select
from sqlalchemy.dialects import mysql, sqlite
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models.user import User
from app.models.user_data import ImportRow, UserField, UserTag
from app.repository.inserts import ignoring_duplicates

S = ImportRow


def stage(rows: list[dict]) -> None:
    """Stage one chunk of changes in one multi-row INSERT."""
    if rows:
        db.session.execute(insert(S), rows)


def known_ids(user_ids: list[int]) -> set[int]:
    """Return which of these ids are users (one SELECT per chunk)."""
    return set(db.session.execute(select(User.id).where(User.id.in_(user_ids))).scalars())


def _staged(import_id: str, op: str):
    """Return the WHERE of one import's staged changes of one kind, for users that still exist."""
    return (S.import_id == import_id) & (S.op == op) & exists().where(User.id == S.user_id)


def _last_for_its_tag(import_id: str):
    """Return the WHERE of the staged tag changes that are the last for their (user, tag): those decide.

    `0` then `1` is an add (a user who had the tag keeps its row, date and
    origin: no chain's `tag:` trigger fires again); `1` then `0` a removal.
    The grouped subquery is uncorrelated: both databases evaluate it once.
    """
    later = aliased(ImportRow)
    last = (select(func.max(later.seq)).where(later.import_id == import_id, later.op.in_(("+", "-")))
            .group_by(later.user_id, later.name))
    return S.seq.in_(last)


def remove_tags(import_id: str) -> int:
    """Take off every tag whose last staged change removes it, in one DELETE; return the rows removed."""
    match = exists().where(_staged(import_id, "-"), _last_for_its_tag(import_id), S.user_id == UserTag.user_id,
                           S.name == UserTag.tag)
    return db.session.execute(delete(UserTag).where(match).execution_options(synchronize_session=False)).rowcount


def add_tags(import_id: str, now: datetime) -> int:
    """Add every tag whose last staged change adds it, in one INSERT … SELECT (a tag a user has is kept)."""
    rows = select(S.user_id, S.name, literal("csv"), literal(now)).where(_staged(import_id, "+"),
                                                                          _last_for_its_tag(import_id))
    stmt = ignoring_duplicates(insert(UserTag).from_select(["user_id", "tag", "origin", "created_at"], rows))
    return db.session.execute(stmt).rowcount


def set_fields(import_id: str, now: datetime) -> None:
    """Set every field the import sets, in one INSERT … SELECT upsert; a user's later line wins (ORDER BY seq)."""
    rows = select(S.user_id, S.name, S.value, literal(now)).where(_staged(import_id, "=")).order_by(S.seq)
    names = ["user_id", "name", "value", "updated_at"]
    if db.session.get_bind().dialect.name == "sqlite":
        stmt = sqlite.insert(UserField).from_select(names, rows)
        stmt = stmt.on_conflict_do_update(index_elements=["user_id", "name"],
                                          set_={"value": stmt.excluded.value, "updated_at": now})
    else:
        stmt = mysql.insert(UserField).from_select(names, rows)
        stmt = stmt.on_duplicate_key_update(value=stmt.inserted.value, updated_at=now)
    db.session.execute(stmt)


def drop(import_id: str, limit: int) -> int:
    """Delete up to limit staged rows of an import (bounded, so the cleanup never holds a long lock)."""
    seqs = list(db.session.execute(select(S.seq).where(S.import_id == import_id).limit(limit)).scalars())
    if not seqs:
        return 0
    return db.session.execute(delete(S).where(S.import_id == import_id, S.seq.in_(seqs))).rowcount


def stale_imports(before: datetime) -> list[str]:
    """Return the ids of imports staged before this time (a killed import's leftovers)."""
    return list(db.session.execute(select(S.import_id).where(S.created_at < before).distinct().limit(100)).scalars())
