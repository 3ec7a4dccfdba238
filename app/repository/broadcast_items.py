"""Item rows: population, claiming, in-flight marks and outcomes.

A pump only touches items after fence() in the same transaction proved it
holds the job's lease, so no two pumps ever write the same job's items.
"""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import and_, delete, func, insert, literal, not_, or_, select, update

from app.clock import utcnow
from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import ITEM_FAILED, PENDING, SENDING, SENT, TERMINAL, UNKNOWN, BroadcastJob, BroadcastJobItem
from app.models.user import CHANNEL_MEMBER, User

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)


def audience_filter(audience: Audience | str, now: datetime | None = None) -> list:
    """Return the WHERE clause selecting an audience and its filters from users (no Telegram calls).

    The one place the audience becomes SQL: the count shown before confirming
    and populate() use it alike, so they cannot disagree.
    """
    aud = Audience.of(audience)
    clause = [User.is_blocked.is_(False)]
    if aud.base == "members":
        clause.append(User.main_channel_status == CHANNEL_MEMBER)
    elif aud.base == "non_members":
        # Unknown counts as "not known to be a member": they get the invitation.
        clause.append(User.main_channel_status != CHANNEL_MEMBER)
    if aud.langs:
        clause.append(or_(*(_lang_is(lang) for lang in aud.langs)))
    now = now or utcnow()
    if aud.active_days is not None:
        clause.append(User.last_seen_at >= now - timedelta(days=aud.active_days))
    if aud.joined_days is not None:
        clause.append(User.started_at >= now - timedelta(days=aud.joined_days))
    return clause


def _lang_is(lang: str):
    """Return the condition for one language choice (LIKE is case-insensitive on both databases)."""
    if lang == "other":
        code = User.language_code
        return or_(code.is_(None), and_(not_(code.like("fa%")), not_(code.like("en%"))))
    return User.language_code.like(f"{lang}%")


def count_audience(audience: Audience | str, now: datetime | None = None) -> int:
    """Count the users an audience would reach now."""
    where = audience_filter(audience, now)
    return db.session.execute(select(func.count()).select_from(User).where(*where)).scalar_one()


def populate(job_id: int, audience: Audience | str, now: datetime | None = None) -> int:
    """Insert one pending item per audience member with a single INSERT ... SELECT.

    Safe to run twice: UNIQUE(job_id, user_id) plus INSERT IGNORE / OR IGNORE
    drop the second copy. Returns the job's item count afterwards.
    """
    where = audience_filter(audience, now)
    rows = select(literal(job_id), User.id, literal(PENDING)).where(*where).order_by(User.id)
    stmt = (
        insert(I).from_select(["job_id", "user_id", "status"], rows)
        .prefix_with("IGNORE", dialect="mysql")
        .prefix_with("IGNORE", dialect="mariadb")
        .prefix_with("OR IGNORE", dialect="sqlite")
    )
    db.session.execute(stmt)
    return db.session.execute(select(func.count()).select_from(I).where(I.job_id == job_id)).scalar_one()


def next_pending(job_id: int, after_id: int, limit: int) -> list[tuple[int, int]]:
    """Return up to limit (item id, user id) pending items after after_id, in id order."""
    rows = db.session.execute(
        select(I.id, I.user_id).where(I.job_id == job_id, I.status == PENDING, I.id > after_id)
        .order_by(I.id).limit(limit)
    )
    return [(r[0], r[1]) for r in rows]


def next_pending_named(job_id: int, after_id: int, limit: int) -> list[tuple[int, int, str | None, str | None]]:
    """Like next_pending, with each recipient's first name and language (personal greetings); one join."""
    rows = db.session.execute(
        select(I.id, I.user_id, User.first_name, User.language_code).outerjoin(User, User.id == I.user_id)
        .where(I.job_id == job_id, I.status == PENDING, I.id > after_id).order_by(I.id).limit(limit)
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def mark_sending(ids: list[int]) -> int:
    """pending -> sending for items about to be dispatched."""
    if not ids:
        return 0
    stmt = update(I).where(I.id.in_(ids), I.status == PENDING).values(status=SENDING)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def set_final(ids: list[int], status: str, now: datetime, error: str | None = None) -> int:
    """sending -> a final status (or back to pending) for items that share one outcome."""
    if not ids:
        return 0
    values = {"status": status, "error": (error or None) and error[:255]}
    if status == SENT:
        values["sent_at"] = now
    stmt = update(I).where(I.id.in_(ids), I.status == SENDING).values(**values)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def reopen_failed(ids: list[int]) -> int:
    """failed -> pending for items the circuit breaker judged not at fault."""
    if not ids:
        return 0
    stmt = update(I).where(I.id.in_(ids), I.status == ITEM_FAILED).values(status=PENDING, error=None)
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def expire_orphans(job_id: int) -> int:
    """sending -> unknown for items a dead pump left in flight; never re-sent.

    Called by the new lease holder: any item still 'sending' belongs to a pump
    whose lease expired, and its request may or may not have reached Telegram.
    """
    stmt = (
        update(I).where(I.job_id == job_id, I.status == SENDING)
        .values(status=UNKNOWN, error="outcome unknown: the pump sending it stopped")
    )
    return db.session.execute(stmt.execution_options(synchronize_session=False)).rowcount


def tallies(job_id: int) -> dict[str, int]:
    """Count the job's items by status (the source of truth counters are checked against)."""
    rows = db.session.execute(select(I.status, func.count()).where(I.job_id == job_id).group_by(I.status))
    return {status: n for status, n in rows}


def purge_finished(before: datetime) -> int:
    """Delete items of jobs that ended before a cutoff; job rows and counters stay."""
    finished = select(BroadcastJob.id).where(BroadcastJob.status.in_(TERMINAL), BroadcastJob.finished_at < before)
    ids = [r[0] for r in db.session.execute(finished)]
    removed = 0
    for job_id in ids:
        removed += db.session.execute(delete(I).where(I.job_id == job_id)).rowcount
    return removed


def block_users(user_ids: Iterable[int], now: datetime) -> None:
    """Mark users who blocked the bot so no future audience includes them."""
    ids = list(user_ids)
    if ids:
        stmt = update(User).where(User.id.in_(ids), User.is_blocked.is_(False)).values(is_blocked=True, blocked_at=now)
        db.session.execute(stmt.execution_options(synchronize_session=False))
