"""The stats snapshot row: read it, replace it (callers commit)."""
from __future__ import annotations

import json
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models.stats_snapshot import SNAPSHOT_ID, StatsSnapshot


def load() -> tuple[datetime, dict] | None:
    """Return (taken_at, figures) of the snapshot, or None before the first count."""
    row = db.session.execute(select(StatsSnapshot.taken_at, StatsSnapshot.figures)
                             .where(StatsSnapshot.id == SNAPSHOT_ID)).one_or_none()
    return None if row is None else (row.taken_at, json.loads(row.figures))


def save(taken_at: datetime, took_ms: int, figures: dict) -> None:
    """Replace the snapshot; two processes saving at once both succeed and the last write stays."""
    values = dict(taken_at=taken_at, took_ms=took_ms, figures=json.dumps(figures, ensure_ascii=False))
    done = db.session.execute(update(StatsSnapshot).where(StatsSnapshot.id == SNAPSHOT_ID).values(**values)
                              .execution_options(synchronize_session=False)).rowcount
    if done:
        return
    try:
        with db.session.begin_nested():
            db.session.add(StatsSnapshot(id=SNAPSHOT_ID, **values))
    except IntegrityError:
        pass  # another process inserted it first with figures as fresh as these
