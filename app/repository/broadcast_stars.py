"""A paid job's Stars row: open a stretch with the balance before it sends, close it with the balance after.

Only the pump holding the job's lease calls these, so the job's row has one
writer; each UPDATE is still guarded on the stretch it expects (open or
closed), so a replay after a lost commit changes nothing twice.
"""
from __future__ import annotations

from sqlalchemy import update

from app.extensions import db
from app.models.broadcast_stars import BroadcastStars as S


def get(job_id: int) -> S | None:
    """Return the job's Stars row (None: it never started paid)."""
    return db.session.get(S, job_id)


def open_stretch(job_id: int, balance: int, estimate: int) -> None:
    """Record the balance a run starts from: the first run adds the row with the job's estimate."""
    if get(job_id) is None:
        db.session.add(S(job_id=job_id, estimate=estimate, opened_balance=balance, spent=0))
        db.session.flush()
        return
    db.session.execute(update(S).where(S.job_id == job_id, S.opened_balance.is_(None))
                       .values(opened_balance=balance).execution_options(synchronize_session=False))


def close_stretch(job_id: int, opened: int, balance: int) -> bool:
    """Add the balance's fall since ``opened`` to spent and close the stretch; False if it was not that one's."""
    # A balance that rose (a top-up while it sent) counts as no spend, never as a negative one.
    fell = max(opened - balance, 0)
    stmt = (update(S).where(S.job_id == job_id, S.opened_balance == opened)
            .values(spent=S.spent + fell, opened_balance=None).execution_options(synchronize_session=False))
    return db.session.execute(stmt).rowcount == 1
