"""A/B tests' rows: the random split at population, the rest's population, the per-version GROUP BY, the claims.

The split and the rest are one INSERT ... SELECT each. The winner's claim is
one guarded UPDATE on the test job's ab_state: under two cron passes (or an
admin's pick beside cron) the row lock (InnoDB) or SQLite's single write lock
serialises them, the second re-reads ab_state as the first committed it and
matches nothing, so one winner job is ever made. Callers commit.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import case, func, insert, literal, select, update
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import COMPLETED, PENDING, SENT, BroadcastJob, BroadcastJobItem
from app.models.broadcast_button import BroadcastItemClick
from app.models.segment_rule import Target
from app.models.user import User
from app.repository.broadcast_population import audience_filter
from app.repository.row_first import by_primary_key

J, I, C = BroadcastJob, BroadcastJobItem, BroadcastItemClick  # noqa: E741  (short aliases keep the SQL readable)
# The split's order: a hash of (job, user) in integer arithmetic both databases compute alike, every product
# below 2**63. A prime just under 2**31, and multipliers below it; the square makes it more than a rotation.
_P, _A, _B, _C = 2_147_483_629, 1_103_515_245, 1_664_525, 22_695_477


def split_order(job_id: int):
    """Return the SQL of a user's place in a test's random order: reproducible per (job, user), differing per job."""
    h1 = ((User.id % _P) * _A + (job_id % _P) * _B) % _P
    return (h1 * h1 + h1 * _C) % _P


def populate_split(job_id: int, audience: Audience | Target | str, now: datetime | None, letters: str,
                   size: int) -> int:
    """Insert `size` audience members, taken in split_order, as pending items lettered round-robin; return the count.

    One INSERT ... SELECT: the first `size` users of the random order get
    row numbers 1..size, and row n gets letters[(n - 1) % k], so the versions
    differ by at most one recipient and nobody gets two (UNIQUE(job, user)).
    """
    order = split_order(job_id)
    picked = (select(User.id.label("uid"), order.label("h")).where(*audience_filter(audience, now))
              .order_by(order, User.id).limit(size).subquery())
    numbered = select(picked.c.uid, func.row_number().over(order_by=(picked.c.h, picked.c.uid)).label("rn")).subquery()
    place = (numbered.c.rn - 1) % len(letters)
    letter = case(*((place == i, literal(code)) for i, code in enumerate(letters)), else_=literal(letters[0]))
    rows = select(literal(job_id), numbered.c.uid, literal(PENDING), letter)
    return db.session.execute(insert(I).from_select(["job_id", "user_id", "status", "variant"], rows)).rowcount


def populate_rest(job_id: int, test_id: int, audience: Audience | Target | str, now: datetime | None) -> int:
    """Insert the audience as it is now, less every user with an item in the test job, in one INSERT ... SELECT.

    The NOT EXISTS probes the test's UNIQUE(job_id, user_id) index once per
    user: whoever got (or was meant to get) a version never gets the winner.
    """
    tested = aliased(I)
    held = select(tested.id).where(tested.job_id == test_id, tested.user_id == User.id).exists()
    rows = (select(literal(job_id), User.id, literal(PENDING)).where(*audience_filter(audience, now), ~held)
            .order_by(User.id))
    return db.session.execute(insert(I).from_select(["job_id", "user_id", "status"], rows)).rowcount


def version_counts(job_id: int, goal: int | None = None) -> list[tuple[str | None, int, int, int, int | None]]:
    """Return (letter, recipients, delivered, unique clicks, clickers of the goal button) per version of a test.

    One GROUP BY over its items; with a goal button, each item probes the
    clicks table's primary key (item, position) once (a LEFT JOIN).
    """
    delivered = func.sum(case((I.status == SENT, 1), else_=0))
    columns = [I.variant, func.count(), delivered, func.count(I.clicked_at)]
    query = select(*columns)
    if goal is not None:
        query = select(*columns, func.count(C.item_id)).outerjoin(C, (C.item_id == I.id) & (C.position == goal))
    rows = db.session.execute(query.where(I.job_id == job_id).group_by(I.variant).order_by(I.variant))
    return [(row[0], row[1], int(row[2] or 0), row[3], row[4] if goal is not None else None) for row in rows]


def tests_in(state: str) -> list[tuple[int, datetime | None, int | None]]:
    """Return (id, finished_at, wait in seconds) of the completed tests in this A/B state (ab_state's index)."""
    rows = db.session.execute(select(J.id, J.finished_at, J.ab_wait).where(J.ab_state == state,
                                                                            J.status == COMPLETED))
    return [tuple(row) for row in rows]


def _update(*where, **values) -> int:
    """Run one guarded UPDATE of one job, found by its primary key (row_first.py), and return the rows matched."""
    stmt = by_primary_key(update(J).where(*where).values(**values).execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount


def claim_winner(test_id: int, letter: str, open_states: tuple[str, ...], sent: str) -> bool:
    """Move a test from open to sent with its winner, once: of two callers exactly one matches (the module's why)."""
    return _update(J.id == test_id, J.ab_state.in_(open_states), ab_state=sent, ab_winner=letter) == 1


def mark_asked(test_id: int, testing: str, asked: str) -> bool:
    """Move a test from testing to asked (no clear leader): of two cron passes one matches, so one alert goes."""
    return _update(J.id == test_id, J.ab_state == testing, ab_state=asked) == 1


def winner_job_of(test_id: int) -> int | None:
    """Return the id of the winner job a test made, or None."""
    return db.session.execute(select(J.id).where(J.ab_of == test_id).order_by(J.id).limit(1)).scalar()
