"""Which jobs an automation made (a drip-chain step's, a recurring occurrence's) and which an admin did."""
from __future__ import annotations

from sqlalchemy import exists, or_, select

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.models.recurring import RecurringOccurrence

J, Occ = BroadcastJob, RecurringOccurrence


def automated():
    """Return the WHERE of a job a drip-chain step or a recurring occurrence made (ix_recurring_occurrences_job)."""
    return or_(J.chain_step_id.isnot(None), exists().where(Occ.job_id == J.id))


def series_of(job_id: int) -> int | None:
    """Return the recurring series whose occurrence made the job, or None."""
    return db.session.execute(select(Occ.recurring_id).where(Occ.job_id == job_id).limit(1)).scalar()


def newest(limit: int, *, made_by_automation: bool) -> list[BroadcastJob]:
    """Return the newest jobs first: the automated ones, or the others (an admin's own, and their actions)."""
    where = automated() if made_by_automation else ~automated()
    return list(db.session.execute(select(J).where(where).order_by(J.id.desc()).limit(limit)).scalars())
