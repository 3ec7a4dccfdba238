"""Drip chains: the guarded writes and the claim that make each (step, user) happen once (see app.models.chain).

The claim is one INSERT ... SELECT into chain_deliveries, whose UNIQUE(step_id,
user_id) refuses a second row for a (step, user) whatever else goes wrong; the
caller runs it in the transaction that inserts the step's job and its items,
right after lock_active(), so two cron passes on one chain run one after the
other and a pass killed anywhere leaves all of it or none.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, case, exists, func, insert, literal, select, update
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import PENDING, SENT, TERMINAL, BroadcastJob, BroadcastJobItem
from app.models.chain import (
    ACTIVE,
    CLICKED,
    INACTIVE,
    JOINED,
    PAUSED,
    SOURCE,
    STOPPED,
    TAG,
    Chain,
    ChainDelivery,
    ChainStep,
)
from app.models.user import User
from app.models.user_data import UserTag
from app.repository.audience_sql import audience_clause
from app.repository.inserts import ignoring_duplicates
from app.repository.row_first import by_primary_key

C, S, D, I, J = Chain, ChainStep, ChainDelivery, BroadcastJobItem, BroadcastJob  # noqa: E741


def add(chain: Chain, steps: list[ChainStep]) -> Chain:
    """Insert a chain and its steps; flush for their ids."""
    db.session.add(chain)
    db.session.flush()
    for step in steps:
        step.chain_id = chain.id
        db.session.add(step)
    db.session.flush()
    return chain


def get(chain_id: int) -> Chain | None:
    """Return a chain, or None."""
    return db.session.get(C, chain_id)


def newest(limit: int) -> list[Chain]:
    """Return the newest chains first."""
    return list(db.session.execute(select(C).order_by(C.id.desc()).limit(limit)).scalars())


def steps_of(chain_id: int) -> list[ChainStep]:
    """Return a chain's steps in order."""
    return list(db.session.execute(select(S).where(S.chain_id == chain_id).order_by(S.position)).scalars())


def active_ids() -> list[int]:
    """Return the ids of active chains, oldest first."""
    return [r[0] for r in db.session.execute(select(C.id).where(C.status == ACTIVE).order_by(C.id))]


def _change(chain_id: int, allowed: tuple[str, ...], status: str) -> bool:
    """Run one guarded status change; True if it matched (the WHERE names the states it may leave)."""
    stmt = by_primary_key(update(C).where(C.id == chain_id, C.status.in_(allowed)).values(status=status)
                          .execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1


def pause(chain_id: int) -> bool:
    """active -> paused."""
    return _change(chain_id, (ACTIVE,), PAUSED)


def resume(chain_id: int) -> bool:
    """paused -> active."""
    return _change(chain_id, (PAUSED,), ACTIVE)


def stop(chain_id: int) -> bool:
    """active|paused -> stopped; terminal."""
    return _change(chain_id, (ACTIVE, PAUSED), STOPPED)


def lock_active(chain_id: int) -> bool:
    """Lock an active chain's row for this transaction; False if it is not active (paused or stopped meanwhile).

    Safe under two concurrent callers: the UPDATE takes the row's lock
    (InnoDB) or SQLite's one write lock, so a second pass waits here until the
    first commits, and its claim then sees the first's deliveries. A pause or
    stop committed before matches nothing: no claim is made.
    """
    stmt = by_primary_key(update(C).where(C.id == chain_id, C.status == ACTIVE).values(status=ACTIVE)
                          .execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1


def due_where(chain: Chain, step: ChainStep, previous_id: int | None, now: datetime) -> list:
    """Return the WHERE on users of who is due for a step now (subscribed, not yet claimed for it)."""
    cutoff = now - timedelta(seconds=step.delay_seconds)
    where = audience_clause(Audience(), now)  # not blocked, not opted out: the engine's own base clause
    where.append(~exists().where(D.step_id == step.id, D.user_id == User.id))
    if previous_id is not None:
        # After the previous step reached the user: its item sent, delay ago or longer.
        where.append(exists().where(D.step_id == previous_id, D.user_id == User.id, I.job_id == D.job_id,
                                    I.user_id == User.id, I.status == SENT, I.sent_at <= cutoff))
        return where
    return where + _trigger(chain, cutoff)


def _trigger(chain: Chain, cutoff: datetime) -> list:
    """Return the WHERE of step 1: the trigger came at or after the chain's creation, and at or before cutoff."""
    since, kind, value = chain.created_at, chain.trigger_kind, chain.trigger_value
    if kind == JOINED:
        return [User.started_at >= since, User.started_at <= cutoff]
    if kind == SOURCE:
        return [User.start_source == value, User.started_at >= since, User.started_at <= cutoff]
    if kind == TAG:
        return [exists().where(UserTag.user_id == User.id, UserTag.tag == value, UserTag.created_at >= since,
                               UserTag.created_at <= cutoff)]
    if kind == INACTIVE:  # a state: whoever is inactive that long now, whenever it began
        return [User.last_seen_at <= cutoff - timedelta(days=int(value))]
    if kind == CLICKED:
        clicked = aliased(I)
        return [exists().where(clicked.job_id == int(value), clicked.user_id == User.id,
                               clicked.clicked_at >= since, clicked.clicked_at <= cutoff)]
    raise ValueError(f"unknown trigger {kind!r}")


def any_due(where: list) -> bool:
    """Tell whether anybody is due (a cheap probe before a transaction that writes)."""
    return db.session.execute(select(User.id).where(*where).limit(1)).first() is not None


def claim(step_id: int, job_id: int, where: list, now: datetime, limit: int) -> int:
    """Claim up to limit due users for a step's job; return how many rows this call inserted.

    INSERT IGNORE / OR IGNORE: a (step, user) already claimed (by a pass that
    committed after this statement's read began) is dropped by the UNIQUE key,
    never written twice; the job's items are made from the rows inserted here.
    """
    rows = (select(literal(step_id), User.id, literal(job_id), literal(now)).where(*where)
            .order_by(User.id).limit(limit))
    stmt = ignoring_duplicates(insert(D).from_select(["step_id", "user_id", "job_id", "claimed_at"], rows))
    return db.session.execute(stmt).rowcount


def any_waiting(step_id: int, now: datetime) -> bool:
    """Tell whether a step has a user the cap held back whose next day has come (a cheap probe, by its index)."""
    return db.session.execute(select(D.id).where(D.step_id == step_id, D.wait_until <= now).limit(1)).first() \
        is not None


def reclaim_waiting(step_id: int, job_id: int, now: datetime, limit: int) -> int:
    """Point up to limit of a step's waiting claims whose day came (users still subscribed) at job_id; count them.

    Run under the chain's lock (lock_active), after claim(). The UPDATE is
    guarded on wait_until still set: a pass that read the same rows before
    another committed changes none of them, so no claim joins two jobs.
    """
    ids = list(db.session.execute(
        select(D.id).join(User, User.id == D.user_id)
        .where(D.step_id == step_id, D.wait_until <= now, *audience_clause(Audience(), now))
        .order_by(D.id).limit(limit)).scalars())
    if not ids:
        return 0
    stmt = (update(D).where(D.id.in_(ids), D.wait_until.is_not(None)).values(job_id=job_id, wait_until=None)
            .execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount


def wait_for_next_day(step_id: int, job_id: int, user_ids: list[int], until: datetime) -> int:
    """Set the claims of users the daily cap skipped in a step's job to wait until `until`; count them.

    Called in the pump's transaction that skips their items, under the job's
    lease. Guarded on the claim still naming this job and not waiting: a
    replay, or a claim already moved to a newer job, changes nothing.
    """
    if not user_ids:
        return 0
    stmt = (update(D).where(D.step_id == step_id, D.job_id == job_id, D.user_id.in_(user_ids),
                            D.wait_until.is_(None)).values(wait_until=until)
            .execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount


def populate_job(job_id: int, now: datetime) -> int:
    """Insert one pending item per user this job claimed who is still subscribed (population's WHERE); count them."""
    rows = (select(literal(job_id), D.user_id, literal(PENDING)).join(User, User.id == D.user_id)
            .where(D.job_id == job_id, *audience_clause(Audience(), now)).order_by(D.user_id))
    db.session.execute(insert(I).from_select(["job_id", "user_id", "status"], rows))
    return db.session.execute(select(func.count()).select_from(I).where(I.job_id == job_id)).scalar_one()


def step_counters(step_ids: list[int]) -> dict[int, dict]:
    """Sum the step jobs' counters per step: jobs, total, sent, failed (+unknown), skipped, pending, not_sent.

    skipped leaves out the daily cap's skips: those claims wait for their next day (waiting_counts).
    """
    if not step_ids:
        return {}
    open_ = ~J.status.in_([str(s) for s in TERMINAL])
    left = J.total_count - J.sent_count - J.failed_count - J.skipped_count - J.unknown_count
    rows = db.session.execute(select(
        J.chain_step_id, func.count(), func.sum(J.total_count), func.sum(J.sent_count),
        func.sum(J.failed_count + J.unknown_count), func.sum(J.skipped_count - J.capped_count),
        func.sum(case((open_, left), else_=0)), func.sum(case((open_, 0), else_=left)),
    ).where(J.chain_step_id.in_(step_ids)).group_by(J.chain_step_id))
    keys = ("jobs", "total", "delivered", "failed", "skipped", "pending", "not_sent")
    return {r[0]: dict(zip(keys, (int(v or 0) for v in r[1:]), strict=True)) for r in rows}


def claimed_counts(step_ids: list[int]) -> dict[int, int]:
    """Count the (step, user) claims per step."""
    if not step_ids:
        return {}
    rows = db.session.execute(select(D.step_id, func.count()).where(D.step_id.in_(step_ids)).group_by(D.step_id))
    return {step_id: n for step_id, n in rows}


def waiting_counts(step_ids: list[int]) -> dict[int, int]:
    """Count per step the claims the daily cap holds back until a next day."""
    if not step_ids:
        return {}
    rows = db.session.execute(select(D.step_id, func.count()).where(D.step_id.in_(step_ids), D.wait_until.is_not(None))
                              .group_by(D.step_id))
    return {step_id: n for step_id, n in rows}


def user_count_for(step_id: int, user_id: int) -> int:
    """Count a user's claims of a step (0 or 1: the UNIQUE key)."""
    return db.session.execute(select(func.count()).select_from(D)
                              .where(and_(D.step_id == step_id, D.user_id == user_id))).scalar_one()
