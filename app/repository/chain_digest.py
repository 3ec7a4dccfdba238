"""Drip chains' daily digest: which chains a pass takes for a day (once), and that day's numbers per chain."""
from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import case, func, or_, select, update

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.models.chain import Chain, ChainStep
from app.repository.row_first import by_primary_key

C, S, J = Chain, ChainStep, BroadcastJob


def undigested(day: date) -> list[int]:
    """Return the chains not yet taken into day's digest (or a later one), oldest first."""
    return [r[0] for r in db.session.execute(
        select(C.id).where(or_(C.digest_day.is_(None), C.digest_day < day)).order_by(C.id))]


def take(chain_id: int, day: date) -> bool:
    """Take one chain into day's digest; True for the one caller whose UPDATE matched.

    Safe under two concurrent passes: the UPDATE takes the row's lock
    (InnoDB) or SQLite's one write lock, and the second pass, once the first
    committed, re-reads digest_day = day and matches nothing. Passes take
    chains in id order, so two of them never wait on each other in a cycle.
    """
    stmt = by_primary_key(update(C).where(C.id == chain_id, or_(C.digest_day.is_(None), C.digest_day < day))
                          .values(digest_day=day).execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1


def day_numbers(chain_ids: list[int], start: datetime, end: datetime) -> list[dict]:
    """Return, per chain with a step job made in [start, end): its name and its jobs' counters, by chain id.

    started: the recipients of its first step's jobs; steps: every step's recipients;
    delivered / failed (+ unknown): their outcomes as the jobs' counters read now.
    """
    if not chain_ids:
        return []
    rows = db.session.execute(
        select(C.id, C.name, func.sum(case((S.position == 1, J.total_count), else_=0)), func.sum(J.total_count),
               func.sum(J.sent_count), func.sum(J.failed_count + J.unknown_count))
        .join(S, S.chain_id == C.id).join(J, J.chain_step_id == S.id)
        .where(C.id.in_(chain_ids), J.created_at >= start, J.created_at < end)
        .group_by(C.id, C.name).order_by(C.id))
    keys = ("started", "steps", "delivered", "failed")
    return [{"id": r[0], "name": r[1], **{k: int(v or 0) for k, v in zip(keys, r[2:], strict=True)}} for r in rows]
