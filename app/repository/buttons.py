"""A keyboard's per-button counters (broadcast_buttons): rows inserted with the job, moved by guarded UPDATEs."""
from __future__ import annotations

from sqlalchemy import insert, select, update

from app.extensions import db
from app.models.broadcast_button import BroadcastButton

B = BroadcastButton


def add_rows(job_id: int, positions: list[int]) -> None:
    """Insert a job's button rows, all counters at zero (in the job's own insert transaction)."""
    if positions:
        db.session.execute(insert(B), [{"job_id": job_id, "position": pos} for pos in positions])


def add_click(job_id: int, position: int, first: bool) -> bool:
    """Count a click on one button (and the recipient's first click when it was); False when the job has no such row.

    Called after the job row and the item were updated (record_click's order:
    job, item, then this row), so it never waits on a pump holding an item.
    """
    values = {"clicks": B.clicks + 1, "first_clicks": B.first_clicks + int(first)}
    return db.session.execute(update(B).where(B.job_id == job_id, B.position == position)
                              .values(**values)).rowcount == 1


def add_press(job_id: int, position: int) -> bool:
    """Count a verified press of a tap or menu button; False when the job has no such row."""
    return db.session.execute(update(B).where(B.job_id == job_id, B.position == position)
                              .values(presses=B.presses + 1)).rowcount == 1


def counts(job_id: int) -> dict[int, tuple[int, int, int]]:
    """Return position -> (clicks, first clicks, presses) of a job's buttons (one SELECT)."""
    rows = db.session.execute(select(B.position, B.clicks, B.first_clicks, B.presses).where(B.job_id == job_id))
    return {pos: (clicks, first, presses) for pos, clicks, first, presses in rows}
