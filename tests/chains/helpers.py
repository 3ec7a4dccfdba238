"""Plain helpers for chain tests: users with chosen times, a chain created at a chosen moment, what was claimed."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import insert, select, update

from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, Chain, ChainDelivery, ChainStep, User
from app.services.chains import manage
from app.services.chains.rules import parse_steps, parse_trigger
from tests.broadcast.helpers import engine_settings

T0 = datetime(2026, 12, 26, 6, 30)  # the chain's creation (UTC)
FAST = engine_settings(broadcast_rate_per_second=30)
BASE = 7_000_000_000


def add_user(uid: int, *, started: datetime = T0 + timedelta(minutes=1), seen: datetime | None = None,
             source: str | None = None, blocked: bool = False, opted_out: bool = False, name: str = "Sara") -> int:
    """Insert one user with the times a trigger reads."""
    db.session.execute(insert(User).values(id=uid, first_name=name, started_at=started, last_seen_at=seen or started,
                                           start_source=source, is_blocked=blocked,
                                           opted_out_at=T0 if opted_out else None))
    db.session.commit()
    return uid


def make_chain(trigger: str, *steps: str, at: datetime = T0, **kw) -> int:
    """Create a chain through the service and move its creation to `at`."""
    chain_id = manage.create("welcome", parse_trigger(trigger), parse_steps(list(steps)), **kw)
    db.session.execute(update(Chain).where(Chain.id == chain_id).values(created_at=at))
    db.session.commit()
    return chain_id


def step_ids(chain_id: int) -> list[int]:
    ids = [r[0] for r in db.session.execute(select(ChainStep.id).where(ChainStep.chain_id == chain_id)
                                            .order_by(ChainStep.position))]
    db.session.commit()
    return ids


def recipients(job_id: int) -> list[int]:
    """Return a job's recipients (its items' users), ascending."""
    users = sorted(r[0] for r in db.session.execute(select(BroadcastJobItem.user_id)
                                                    .where(BroadcastJobItem.job_id == job_id)))
    db.session.commit()
    return users


def deliveries() -> list[tuple[int, int, int]]:
    """Return every (step, user, job) claimed."""
    rows = [tuple(r) for r in db.session.execute(select(ChainDelivery.step_id, ChainDelivery.user_id,
                                                        ChainDelivery.job_id).order_by(ChainDelivery.id))]
    db.session.commit()
    return rows


def step_jobs() -> list[tuple[int, int | None, str]]:
    """Return (job id, chain step, status) of every job."""
    rows = [tuple(r) for r in db.session.execute(select(BroadcastJob.id, BroadcastJob.chain_step_id,
                                                        BroadcastJob.status).order_by(BroadcastJob.id))]
    db.session.commit()
    return rows


def mark_sent(job_id: int, at: datetime) -> None:
    """Record a job's items as sent at `at` (what the pump would write), its counters to match, and end it."""
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == job_id)
                       .values(status="sent", sent_at=at))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id)
                       .values(sent_count=BroadcastJob.total_count, status="completed", active_slot=None))
    db.session.commit()
