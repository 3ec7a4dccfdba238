"""Unsubscribes per broadcast: which jobs' buttons are real, and the count each moves once per user it opted out."""
from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models.broadcast import KIND_SEND, BroadcastJob
from app.repository import sending_rules as rules_repo


def offers_button(job_id: int) -> bool:
    """Tell whether job_id is a broadcast whose copies carry the unsubscribe button (else the data was forged)."""
    row = db.session.execute(select(BroadcastJob.kind, BroadcastJob.optout_button)
                             .where(BroadcastJob.id == job_id)).first()
    return row is not None and row[0] == KIND_SEND and bool(row[1])


def count(job_id: int) -> None:
    """Count one user the job's button opted out, in the caller's transaction (the tap that changed them)."""
    rules_repo.count_unsubscribe(job_id)
