"""Cron's housekeeping after each pump: a bounded slice of deleting what is past its use."""
from __future__ import annotations

import logging

from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.services import albums, stats
from app.services.broadcast.jobs import population
from app.services.broadcast.jobs import purge as jobs_purge
from app.services.updates import purge_processed_updates

log = logging.getLogger(__name__)
# Per call, so housekeeping adds about a second to a cron tick whatever the backlog: at one tick a
# minute that is 28 million update ids and 36 million items a day, far more than any bot makes.
UPDATES_PER_TICK = 20_000
ALBUM_ROWS_PER_TICK = 5_000
ITEMS_PER_TICK = 25_000


def _safely(name: str, step):
    """Run one step; a database error is logged and rolled back, never failing the pump (the next tick retries)."""
    try:
        return step()
    except SQLAlchemyError as exc:
        db.session.rollback()
        log.warning("%s failed: %s", name, type(exc).__name__)
        return None


def run(settings: dict) -> dict:
    """Purge old update ids and album rows, discard dead populations, purge old ledgers if configured, recount stats."""
    report = {"purged_updates": _safely("purging processed updates", lambda: purge_processed_updates(
        settings["processed_updates_keep_days"], max_rows=UPDATES_PER_TICK))}
    _safely("forgetting old album rows", lambda: _commit(albums.forget_all_old(ALBUM_ROWS_PER_TICK)))
    _safely("discarding abandoned drafts", population.discard_abandoned_drafts)
    keep_days = settings["broadcast_items_keep_days"]
    if keep_days:
        result = _safely("purging old broadcast items", lambda: jobs_purge.purge_items(keep_days,
                                                                                   max_items=ITEMS_PER_TICK))
        report["purged_items"] = result["items"] if result else None
    # Last: at a million users the recount is a few seconds of reading, once every SNAPSHOT_EVERY.
    _safely("recounting the stats snapshot", stats.refresh_if_due)
    return report


def _commit(value):
    """Commit and pass value through."""
    db.session.commit()
    return value
