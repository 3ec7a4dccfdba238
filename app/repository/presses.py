"""A user's press under a copy, beside the pump that sends it: the one lock order, and the unsubscribe count.

Lock order. Every transaction that locks a user's row and a job's row takes
them in this order, so two of them wait for each other instead of
deadlocking on MySQL:

    users -> user_tags -> broadcast_jobs -> broadcast_job_items -> broadcast_buttons

- A webhook update locks its user first (dispatcher: last_seen_at; /stop's
  opted_out_at; a tag's INSERT checks its foreign key with a shared lock on
  the user), then a button counts on its job's row, then on the presser's
  item (the unsubscribe count below) or the button's row (key_press).
- The pump marks the users it found blocked before its lease fence takes the
  job's row, then writes the job's items (Recorder._transaction,
  broadcast_claims.block_users). A pump that fenced first would hold the job
  while a blocked user's press holds that user and waits for the job.
- A click (record_click) and an admin's action take the job's row, then items.

tests/reliability/test_press_lock_order.py runs a pump that marks a user blocked
while that user presses the tap and the unsubscribe button of the same job.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, update

from app.extensions import db
from app.models.broadcast import BroadcastJob, BroadcastJobItem

J, I = BroadcastJob, BroadcastJobItem  # noqa: E741


def count_unsubscribe(job_id: int, user_id: int, now: datetime) -> bool:
    """Count the user once on the job whose button opted them out; False when this (job, user) counted before.

    The job's row first (the order above), then the user's copy: the guarded
    UPDATE of unsubscribed_at matches once per (job, user) ever, so a second
    press after a /subscribe, or two at once from two processes (the second
    waits for the job's row, then matches nothing), adds nothing. A presser
    without a copy of this job (a recipient of another job of its retry
    family only) has no item here and is not counted.
    """
    db.session.execute(select(J.id).where(J.id == job_id).with_for_update())
    claimed = db.session.execute(
        update(I).where(I.job_id == job_id, I.user_id == user_id, I.unsubscribed_at.is_(None))
        .values(unsubscribed_at=now).execution_options(synchronize_session=False)).rowcount
    if claimed:
        db.session.execute(update(J).where(J.id == job_id).values(unsubscribed_count=J.unsubscribed_count + 1)
                           .execution_options(synchronize_session=False))
    return claimed == 1
