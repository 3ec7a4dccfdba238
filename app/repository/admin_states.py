"""Admin conversation state rows: one per admin, a step name and a JSON draft."""
from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import delete, select

from app.extensions import db
from app.models.admin_state import AdminState


def load(admin_id: int, *, lock: bool = False) -> tuple[str, dict] | None:
    """Return (step, draft) for an admin, or None.

    lock=True reads with SELECT ... FOR UPDATE: a second transaction wanting the
    same row (a double-tapped confirm) waits until the first commits and then
    sees the row as the first left it (gone). SQLite has no row locks, but the
    dispatcher's transaction begins with a write (the processed-update insert),
    which holds SQLite's single write lock until commit, so whole transactions
    run one after the other and the second sees the first's result.
    """
    stmt = select(AdminState.step, AdminState.draft).where(AdminState.admin_id == admin_id)
    if lock:
        stmt = stmt.with_for_update()
    row = db.session.execute(stmt).one_or_none()
    if row is None:
        return None
    try:
        draft = json.loads(row.draft or "{}")
    except ValueError:
        draft = {}
    return row.step, draft if isinstance(draft, dict) else {}


def save(admin_id: int, step: str, draft: dict, now: datetime) -> None:
    """Create or replace an admin's state."""
    state = db.session.get(AdminState, admin_id)
    if state is None:
        state = AdminState(admin_id=admin_id)
        db.session.add(state)
    state.step = step
    state.draft = json.dumps(draft, ensure_ascii=False)
    state.updated_at = now
    db.session.flush()


def remove(admin_id: int) -> bool:
    """Delete an admin's state; True when there was one."""
    stmt = delete(AdminState).where(AdminState.admin_id == admin_id).execution_options(synchronize_session="fetch")
    return db.session.execute(stmt).rowcount > 0
