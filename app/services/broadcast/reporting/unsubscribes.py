"""The unsubscribe button under a broadcast's copies: its signed data, who may press it, and its count.

Callback data is `u.off:<job id>.<mac>`, signed over the job id
(app.services.button_mac, its own key), at most 34 bytes. A press is
accepted from a recipient of the job or of any job in its retry family (a
retry's copies carry the retry's id); it opts the presser out like /stop and,
when that changed them, counts once per (job, user) on the job whose copy was
pressed (app.repository.presses). Copies sent before carry the unsigned
`u.out:<job id>` or the fixed `u.stop`: they opt the presser out and never count.
"""
from __future__ import annotations

from sqlalchemy import select

from app.clock import utcnow
from app.extensions import db
from app.models.broadcast import KIND_SEND, BroadcastJob
from app.repository import presses
from app.services import button_mac
from app.services.broadcast.actions import lineage

PREFIX = "u.off"
KEY_LABEL = b"unsub-v1"


def callback_data(job_id: int) -> str:
    """Return the button's callback data (at most 34 bytes: far under Telegram's 64)."""
    return f"{PREFIX}:{job_id}.{button_mac.sign(KEY_LABEL, str(job_id).encode())}"


def offers_button(job_id: int) -> bool:
    """Tell whether job_id is a broadcast whose copies carry the unsubscribe button (else the data was forged)."""
    row = db.session.execute(select(BroadcastJob.kind, BroadcastJob.optout_button)
                             .where(BroadcastJob.id == job_id)).first()
    return row is not None and row[0] == KIND_SEND and bool(row[1])


def accepts(job_id: int, mac: str, user_id: int) -> bool:
    """Tell whether a signed press counts as the job's: its mac, a job with the button, a presser of its family.

    Reads only (nothing locked): the opt-out and the count come after, in the lock order.
    """
    if not button_mac.matches(KEY_LABEL, str(job_id).encode(), mac) or not offers_button(job_id):
        return False
    return bool(lineage.copies_held(job_id, user_id))  # the rule of every button under a copy


def count(job_id: int, user_id: int) -> bool:
    """Count the user the job's button opted out, once per (job, user), in the caller's transaction."""
    return presses.count_unsubscribe(job_id, user_id, utcnow())
