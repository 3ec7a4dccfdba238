"""User rows: registration on /start, blocking, opting out and channel membership."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, case, func, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.user import CHANNEL_MEMBER, CHANNEL_UNKNOWN, User


def is_admin_flag(user_id: int) -> bool:
    """Tell whether the users row marks this id as an admin."""
    flag = db.session.execute(select(User.is_admin).where(User.id == user_id)).scalar_one_or_none()
    return bool(flag)


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


def touch_last_seen(user_id: int, now: datetime, older_than: datetime) -> int:
    """Move last_seen_at to now when it is older than older_than; return the rows changed.

    One primary-key UPDATE that usually matches nothing: under READ COMMITTED
    InnoDB releases the lock of a row that fails the WHERE at once, so a
    busy user's updates do not queue behind each other.
    """
    stmt = (
        update(User).where(User.id == user_id, User.last_seen_at < older_than)
        .values(last_seen_at=now).execution_options(synchronize_session=False)
    )
    return db.session.execute(stmt).rowcount


def set_blocked(user_id: int, blocked: bool, now: datetime) -> int:
    """Set or clear is_blocked (blocked_at with it); return the rows matched."""
    stmt = (
        update(User).where(User.id == user_id)
        .values(is_blocked=blocked, blocked_at=now if blocked else None)
        .execution_options(synchronize_session="fetch")
    )
    return db.session.execute(stmt).rowcount


def set_opted_out(user_id: int, opted_out: bool, now: datetime) -> int:
    """Opt a user out of broadcasts (keeping the first time) or back in; return the rows changed."""
    done = User.opted_out_at.is_not(None)
    stmt = (
        update(User).where(User.id == user_id, ~done if opted_out else done)
        .values(opted_out_at=now if opted_out else None)
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


def admin_profiles(admin_ids) -> list[tuple[int, str | None, bool]]:
    """Return (id, language_code, is_blocked) of users flagged admin or listed in admin_ids."""
    where = User.is_admin.is_(True)
    if admin_ids:
        where = or_(where, User.id.in_(sorted(admin_ids)))
    return [tuple(row) for row in db.session.execute(
        select(User.id, User.language_code, User.is_blocked).where(where).order_by(User.id))]


def _count_if(condition):
    """Return SUM(CASE WHEN condition THEN 1 ELSE 0 END), 0 over no rows: one count of a one-scan aggregate."""
    return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)


def source_counts(week: datetime, month: datetime, limit: int) -> list[dict]:
    """Count users per first source (the largest first): all, joined since week / month, still subscribed."""
    users = func.count()
    rows = db.session.execute(
        select(User.start_source, users.label("users"),
               _count_if(User.started_at >= week).label("joined_7d"),
               _count_if(User.started_at >= month).label("joined_30d"),
               _count_if(and_(User.is_blocked.is_(False), User.opted_out_at.is_(None))).label("subscribed"))
        .where(User.start_source.is_not(None)).group_by(User.start_source)
        .order_by(users.desc(), User.start_source).limit(limit))
    return [{"source": row.start_source, **{key: int(row._mapping[key])
                                            for key in ("users", "joined_7d", "joined_30d", "subscribed")}}
            for row in rows]


def top_sources(limit: int) -> list[str]:
    """Return the first sources with the most users, the largest first."""
    return list(db.session.execute(
        select(User.start_source).where(User.start_source.is_not(None)).group_by(User.start_source)
        .order_by(func.count().desc(), User.start_source).limit(limit)).scalars())


def population_counts(active_7d: datetime, active_30d: datetime, today: datetime, week: datetime) -> dict[str, int]:
    """Count users, the active, blocked, opted out, channel members and newcomers in one scan."""
    row = db.session.execute(select(
        func.count().label("users"),
        _count_if(User.last_seen_at >= active_7d).label("active_7d"),
        _count_if(User.last_seen_at >= active_30d).label("active_30d"),
        _count_if(User.is_blocked.is_(True)).label("blocked"),
        _count_if(User.opted_out_at.is_not(None)).label("opted_out"),
        _count_if(User.main_channel_status == CHANNEL_MEMBER).label("channel_members"),
        _count_if(User.started_at >= today).label("new_today"),
        _count_if(User.started_at >= week).label("new_week"),
    )).one()
    return {key: int(value) for key, value in row._mapping.items()}
