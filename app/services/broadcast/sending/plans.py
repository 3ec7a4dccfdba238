"""A group of finished sends judged once (a Plan) and written: item statuses, counters, blocked users, the breaker."""
from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from app.models.broadcast import ITEM_FAILED, PENDING, SENT, ItemStatus
from app.repository import broadcast_claims as items
from app.repository import broadcast_jobs as jobs_repo
from app.repository.deadlocks import in_transaction
from app.services.broadcast.sending import breaker, landing
from app.services.broadcast.sending import outcomes as oc

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """The writes that record one group of finished sends (judged once, written until it sticks)."""

    finals: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    # (item id, message id) of sent items: written by one UPDATE that sets each item's own message id.
    sent: list[tuple[int, int | None]] = field(default_factory=list)
    # An album's sent items: item id -> every part's copy, written by the same UPDATE.
    parts: dict[int, tuple[int, ...]] = field(default_factory=dict)
    back: list[int] = field(default_factory=list)
    reopen: list[int] = field(default_factory=list)
    blocked: list[int] = field(default_factory=list)
    not_before: object = None
    held_seconds: float = 0.0  # the 429's retry_after, for the audit entry beside not_before
    recorded: int = 0


def sort_outcomes(done: list, stop) -> tuple[Plan, int]:
    """Put each finished send's outcome where it is written; return the plan and how many are no longer charged.

    A paid job's cap counts sent and unknown copies: any other outcome gives its charge back.
    """
    plan, uncharged = Plan(), 0
    for item_id, user_id, outcome in done:
        kind = breaker.kind_of(outcome, stop)
        if kind == oc.SENT:
            plan.sent.append((item_id, outcome.message_id))
            if outcome.message_ids:
                plan.parts[item_id] = outcome.message_ids
        elif kind.status is not None:
            plan.finals[(kind.status, outcome.error or "")].append(item_id)
        else:
            plan.back.append(item_id)
        if kind != oc.SENT and kind != oc.UNKNOWN:
            uncharged += 1
        if outcome.blocked:
            plan.blocked.append(user_id)
    plan.recorded = len(done) - len(plan.back)
    return plan, uncharged


def trip(plan: Plan, streak: breaker.Streak) -> None:
    """Apply the breaker's opening: the streak's failed items go back to pending (earlier steps' are reopened)."""
    streak_ids = set(streak.failed)
    for key in [k for k in plan.finals if k[0] == ITEM_FAILED]:
        here = [i for i in plan.finals[key] if i in streak_ids]
        plan.finals[key] = [i for i in plan.finals[key] if i not in streak_ids]
        plan.back.extend(here)
        streak_ids -= set(here)
    # Failed items of the streak already written by earlier steps.
    plan.reopen = list(streak_ids)


def expected_counts(plans: list[Plan]) -> dict[ItemStatus, int]:
    """Return how the plans move the counters if every row they name changes (as it does but for a replay)."""
    counts: dict[ItemStatus, int] = defaultdict(int)
    for plan in plans:
        counts[SENT] += len(plan.sent)
        for (status, _), ids in plan.finals.items():
            counts[status] += len(ids)
        counts[ITEM_FAILED] -= len(plan.reopen)
    return {status: n for status, n in counts.items() if n}


def block_users(plans: list[Plan], now) -> None:
    """Mark the users the plans found blocked: first in the step's transaction, before the fence takes the job's row.

    The lock order (app/repository/presses.py): a user's row before a job's,
    as a press of that user under a copy of this job takes them.
    """
    items.block_users([user_id for plan in plans for user_id in plan.blocked], now)


def write_items(plan: Plan, now, *, action: bool) -> dict[ItemStatus, int]:
    """Write one plan's items; return how its rows really changed each counter (a replay: none)."""
    counts: dict[ItemStatus, int] = defaultdict(int)
    if action:  # the item keeps the id of the copy it acted on
        counts[SENT] += items.set_done([item_id for item_id, _ in plan.sent], now)
    else:
        counts[SENT] += items.set_sent(plan.sent, now, plan.parts)
    for (status, error), ids in plan.finals.items():
        counts[status] += items.set_final(ids, status, now, error)
    items.set_final(plan.back, PENDING, now)
    reopened = items.reopen_failed(plan.reopen)
    if reopened:
        counts[ITEM_FAILED] -= reopened
    return counts


def record_late_answers(job_id: int, plans: list[Plan], now) -> int:
    """Write answers a pump heard after losing its lease onto items the new holder counted unknown; drop the rest.

    Only while those items may still land (landing.late_answers_since), so
    an unsend or edit accepted after that window misses none. ``now`` reads
    the database's clock; returns the items recorded sent.
    """
    sent = [pair for plan in plans for pair in plan.sent]
    parts = {item_id: ids for plan in plans for item_id, ids in plan.parts.items()}
    if not sent:
        return 0

    def write() -> int:
        at = now()
        n = items.set_sent(sent, at, parts, settled_since=landing.late_answers_since(at))
        if n:
            jobs_repo.add_counts(job_id, sent=n, unknown=-n)
        return n

    try:
        n = in_transaction(write)
    except SQLAlchemyError:
        log.warning("job %s: could not record %s late answers; they stay unknown", job_id, len(sent), exc_info=True)
        return 0
    log.warning("job %s: lease lost; %s of %s copies that answered after all are recorded sent", job_id, n, len(sent))
    return n
