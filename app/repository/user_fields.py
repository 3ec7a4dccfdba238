"""Users' custom fields: bulk set and unset per chunk of ids, one block's values, names with their counts."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import mysql, sqlite

from app.extensions import db
from app.models.user import User
from app.models.user_data import UserField


def known_with_value(name: str, user_ids: list[int]) -> dict[int, str | None]:
    """Return {id: its current value of the field, or None} for the ids that are users: one SELECT."""
    rows = db.session.execute(
        select(User.id, UserField.value)
        .outerjoin(UserField, (UserField.user_id == User.id) & (UserField.name == name))
        .where(User.id.in_(user_ids))).all()
    return {row[0]: row[1] for row in rows}


def insert_values(name: str, value: str, user_ids: list[int], now: datetime) -> int:
    """Give these users (who have no such field) the value in one multi-row INSERT; return the rows inserted.

    A row a concurrent writer inserted first is overwritten with this value
    (an upsert), so the field ends as the last command wrote it.
    """
    if not user_ids:
        return 0
    rows = [{"user_id": uid, "name": name, "value": value, "updated_at": now} for uid in user_ids]
    if db.session.get_bind().dialect.name == "sqlite":
        stmt = sqlite.insert(UserField).values(rows)
        stmt = stmt.on_conflict_do_update(index_elements=["user_id", "name"],
                                          set_={"value": stmt.excluded.value, "updated_at": now})
    else:
        stmt = mysql.insert(UserField).values(rows)
        stmt = stmt.on_duplicate_key_update(value=stmt.inserted.value, updated_at=now)
    return db.session.execute(stmt).rowcount


def update_values(name: str, value: str, user_ids: list[int], now: datetime) -> int:
    """Change the field's value of these users (who have it) in one UPDATE; return the rows matched."""
    if not user_ids:
        return 0
    return db.session.execute(update(UserField).where(UserField.name == name, UserField.user_id.in_(user_ids))
                              .values(value=value, updated_at=now)
                              .execution_options(synchronize_session=False)).rowcount


def delete_values(name: str, user_ids: list[int]) -> int:
    """Remove the field from these users; return the rows removed."""
    if not user_ids:
        return 0
    return db.session.execute(delete(UserField).where(UserField.name == name, UserField.user_id.in_(user_ids))
                              .execution_options(synchronize_session=False)).rowcount


def fields_of(user_id: int) -> list[tuple[str, str, datetime]]:
    """Return one user's (name, value, updated_at), by name."""
    return [tuple(row) for row in db.session.execute(
        select(UserField.name, UserField.value, UserField.updated_at).where(UserField.user_id == user_id)
        .order_by(UserField.name))]


def values_for(user_ids: list[int], names: list[str]) -> dict[int, dict[str, str]]:
    """Return {user id: {name: value}} of these fields for a block of recipients: one SELECT on the primary key."""
    out: dict[int, dict[str, str]] = {}
    if not user_ids or not names:
        return out
    for uid, name, value in db.session.execute(
            select(UserField.user_id, UserField.name, UserField.value)
            .where(UserField.user_id.in_(user_ids), UserField.name.in_(names))):
        out.setdefault(uid, {})[name] = value
    return out


def name_counts() -> list[tuple[str, int]]:
    """Return every field name with its number of users, the largest first."""
    users = func.count()
    return [(row[0], int(row[1])) for row in db.session.execute(
        select(UserField.name, users).group_by(UserField.name).order_by(users.desc(), UserField.name))]
