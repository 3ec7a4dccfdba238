"""A keyboard's per-button counters (broadcast_buttons) and who clicked which button (broadcast_item_clicks).

Counter rows are inserted with the job and moved by guarded UPDATEs; a row's
variant is "" for the job's keyboard, an A/B version's letter for its own.
"""
from __future__ import annotations

from sqlalchemy import insert, select, update

from app.extensions import db
from app.models.broadcast_button import BroadcastButton, BroadcastItemClick
from app.repository.inserts import ignoring_duplicates

B = BroadcastButton


def add_rows(job_id: int, positions: list[int], variant: str = "") -> None:
    """Insert a job's button rows, all counters at zero (in the job's own insert transaction)."""
    if positions:
        db.session.execute(insert(B), [{"job_id": job_id, "variant": variant, "position": pos} for pos in positions])


def add_click(job_id: int, position: int, first: bool, variant: str = "") -> bool:
    """Count a click on one button (and the recipient's first click when it was); False when the job has no such row.

    Called after the job row and the item were updated (record_click's order:
    job, item, then this row), so it never waits on a pump holding an item.
    """
    values = {"clicks": B.clicks + 1, "first_clicks": B.first_clicks + int(first)}
    return db.session.execute(update(B).where(B.job_id == job_id, B.variant == variant, B.position == position)
                              .values(**values)).rowcount == 1


def add_clicker(item_id: int, position: int) -> None:
    """Keep that this recipient clicked this button: one INSERT, a repeated click ignored by the primary key."""
    db.session.execute(ignoring_duplicates(insert(BroadcastItemClick).values(item_id=item_id, position=position)))


def add_press(job_id: int, position: int, variant: str = "") -> bool:
    """Count a verified press of a tap or menu button; False when the job has no such row."""
    return db.session.execute(update(B).where(B.job_id == job_id, B.variant == variant, B.position == position)
                              .values(presses=B.presses + 1)).rowcount == 1


def counts(job_id: int, variant: str = "") -> dict[int, tuple[int, int, int]]:
    """Return position -> (clicks, first clicks, presses) of a job's buttons of one keyboard (one SELECT)."""
    rows = db.session.execute(select(B.position, B.clicks, B.first_clicks, B.presses)
                              .where(B.job_id == job_id, B.variant == variant))
    return {pos: (clicks, first, presses) for pos, clicks, first, presses in rows}
