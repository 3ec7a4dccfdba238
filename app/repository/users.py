"""User rows: registration on /start, blocking, opting out and channel membership."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, case, func, insert, inspect, or_, select, update
from sqlalchemy.dialects.mysql import Insert as MySQLInsert
from sqlalchemy.dialects.mysql import insert as mysql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm.util import identity_key

from app.extensions import db
from app.models.user import CHANNEL_MEMBER, CHANNEL_UNKNOWN, User
from app.repository.inserts import ignoring_duplicates


def is_admin_flag(user_id: int) -> bool:
    """Tell whether the users row marks this id as an admin."""
    flag = db.session.execute(select(User.is_admin).where(User.id == user_id)).scalar_one_or_none()
    return bool(flag)


def loaded(user_id: int) -> User | None:
    """Return the user's row if this session holds it already (no statement), else None."""
    return db.session.identity_map.get(identity_key(User, user_id))


NOT_LOADED = object()


def loaded_value(user_id: int, name: str):
    """Return a column's value of the user's row as this session holds it (no statement), else NOT_LOADED."""
    user = loaded(user_id)
    return NOT_LOADED if user is None else inspect(user).dict.get(name, NOT_LOADED)


def _dialect_insert(values: dict):
    """Return an INSERT of one users row in the session's dialect (for its upsert clause)."""
    if db.session.get_bind().dialect.name == "sqlite":
        return sqlite_insert(User).values(**values)
    return mysql_insert(User).values(**values)


def upsert_start(user_id: int, now: datetime, source: str | None, **fields) -> None:
    """Insert a starting user, or refresh the row on /start: one statement, safe under concurrent first contacts.

    An existing row gets the profile fields, last_seen_at = now and is_blocked
    cleared; its start_source is kept when it has one (the first stays).
    Opting out, the channel status and started_at are left as they are.
    """
    stmt = _dialect_insert(dict(id=user_id, started_at=now, last_seen_at=now, is_admin=False, is_blocked=False,
                                main_channel_status=CHANNEL_UNKNOWN, start_source=source, **fields))
    new = stmt.inserted if isinstance(stmt, MySQLInsert) else stmt.excluded
    refresh = {name: new[name] for name in fields}
    refresh.update(last_seen_at=new.last_seen_at, is_blocked=False, blocked_at=None,
                   start_source=func.coalesce(User.__table__.c.start_source, new.start_source))
    if isinstance(stmt, MySQLInsert):
        stmt = stmt.on_duplicate_key_update(**refresh)
    else:
        stmt = stmt.on_conflict_do_update(index_elements=[User.__table__.c.id], set_=refresh)
    db.session.execute(stmt)


def insert_if_new(user_id: int, now: datetime, **fields) -> None:
    """Insert the user unless a row holds the id already (left as it is): one statement, no savepoint."""
    db.session.execute(ignoring_duplicates(insert(User).values(
        id=user_id, started_at=now, last_seen_at=now, main_channel_status=CHANNEL_UNKNOWN, **fields)))


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
        # Evaluated on a loaded row in Python: "fetch" costs MariaDB a SELECT before the UPDATE.
        .execution_options(synchronize_session="evaluate")
    )
    return db.session.execute(stmt).rowcount


def set_opted_out(user_id: int, opted_out: bool, now: datetime) -> int:
    """Opt a user out of broadcasts (keeping the first time) or back in; return the rows changed."""
    done = User.opted_out_at.is_not(None)
    stmt = (
        update(User).where(User.id == user_id, ~done if opted_out else done)
        .values(opted_out_at=now if opted_out else None)
        .execution_options(synchronize_session="evaluate")
    )
    return db.session.execute(stmt).rowcount


def set_channel_status(user_id: int, status: str, now: datetime) -> int:
    """Record a user's main-channel status; return the rows matched (0 for strangers)."""
    stmt = (
        update(User).where(User.id == user_id)
        .values(main_channel_status=status, main_channel_checked_at=now)
        .execution_options(synchronize_session="evaluate")
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
