"""User rows: registration on /start, blocking and channel membership."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.user import CHANNEL_UNKNOWN, User


def is_admin_flag(user_id: int) -> bool:
    """Tell whether the users row marks this id as an admin."""
    flag = db.session.execute(select(User.is_admin).where(User.id == user_id)).scalar_one_or_none()
    return bool(flag)


def flagged_admin_ids() -> list[int]:
    """Return the ids the users table marks as admins."""
    return list(db.session.execute(select(User.id).where(User.is_admin.is_(True)).order_by(User.id)).scalars())


def languages_of(user_ids) -> dict[int, str | None]:
    """Return the Telegram language code of each of these users that has a row."""
    rows = db.session.execute(select(User.id, User.language_code).where(User.id.in_(list(user_ids)))).all()
    return {uid: code for uid, code in rows}


def insert_or_get(user_id: int, now: datetime, **fields) -> tuple[User, bool]:
    """Return the user, inserting a new row first if there is none (True when created).

    Safe under two concurrent first contacts: the insert runs in a savepoint, so
    the loser's duplicate-key error only undoes the savepoint and it reads the
    winner's row (MySQL blocks the loser on the key until the winner commits).
    """
    user = db.session.get(User, user_id)
    if user is not None:
        return user, False
    user = User(id=user_id, started_at=now, last_seen_at=now, main_channel_status=CHANNEL_UNKNOWN, **fields)
    try:
        with db.session.begin_nested():
            db.session.add(user)
    except IntegrityError:
        existing = db.session.get(User, user_id, populate_existing=True)
        if existing is None:
            raise
        return existing, False
    return user, True


def set_blocked(user_id: int, blocked: bool, now: datetime) -> int:
    """Set or clear is_blocked (blocked_at with it); return the rows matched."""
    stmt = (
        update(User).where(User.id == user_id)
        .values(is_blocked=blocked, blocked_at=now if blocked else None)
        .execution_options(synchronize_session="fetch")
    )
    return db.session.execute(stmt).rowcount


def set_channel_status(user_id: int, status: str, now: datetime) -> int:
    """Record a user's main-channel status; return the rows matched (0 for strangers)."""
    stmt = (
        update(User).where(User.id == user_id)
        .values(main_channel_status=status, main_channel_checked_at=now)
        .execution_options(synchronize_session="fetch")
    )
    return db.session.execute(stmt).rowcount
