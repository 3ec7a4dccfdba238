"""Populate a draft job in short chunks (one INSERT…SELECT each) and discard drafts that never finished."""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import datetime, timedelta

from app.extensions import db
from app.models.audience import Audience
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_population as population_repo
from app.repository.db_clock import db_utcnow

log = logging.getLogger(__name__)
# Population and deletion work in chunks of this many users / items, one short transaction each.
# SQLite: 20,000 users hold its one write lock some 25-100 ms, so the webhook's writes go between.
POPULATE_CHUNK = 20_000
# MySQL: the population takes no lock the webhook waits for (see let_writers_in), so a chunk only
# bounds one transaction's undo log; 100,000 users (about 1 s) make 10 statements of a million, not 50.
POPULATE_CHUNK_MYSQL = 100_000
DELETE_CHUNK = 5_000
SQLITE_CHUNK_PAUSE = 0.12  # seconds: longer than SQLite's longest busy-wait poll (100 ms)
# SQLite's default busy handler (busy_timeout) sleeps these milliseconds in turn, then 100 ms each time.
SQLITE_BUSY_SLEEPS_MS = (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100)
SQLITE_WAKE_MARGIN = 0.01  # seconds for a woken writer to be scheduled and take the lock
# A draft older than this is a population whose process died (a million users populate in seconds).
DRAFT_ABANDONED = timedelta(hours=1)


def populate_in_chunks(job_id: int, audience: Audience, now: datetime, chunk: int | None = None,
                       variants: Iterable[str] = ()) -> int:
    """Populate a committed draft job by user id ranges, one short transaction per chunk; return its exact total.

    Each chunk commits, so no statement holds SQLite's write lock (or MySQL's
    locks) for long and the webhook's writes go between chunks. The job stays
    a draft meanwhile: the pump only sends running jobs, and only
    queue_populated() (after the last chunk) lets it out of draft. If the
    population fails, its items and the draft go; if the process dies,
    discard_abandoned_drafts() (cron) removes them.
    """
    chunk = chunk or _populate_chunk()
    db.session.commit()  # the draft row on its own: each chunk's transaction stays short
    try:
        after = None
        while True:
            upto = population_repo.user_id_after(after, chunk)
            started = time.monotonic()  # SQLite's write lock is taken by the INSERT, freed by the COMMIT
            population_repo.populate(job_id, audience, now, variants, after=after, upto=upto, count=False)
            db.session.commit()
            if upto is None:
                break
            after = upto
            let_writers_in(time.monotonic() - started)
        return population_repo.count_items(job_id)  # once, exact: whatever a repeated chunk did
    except BaseException:
        db.session.rollback()
        discard_draft(job_id)
        raise


def _populate_chunk() -> int:
    """Users per population chunk on this database."""
    return POPULATE_CHUNK if db.engine.dialect.name == "sqlite" else POPULATE_CHUNK_MYSQL


def let_writers_in(held: float | None = None) -> None:
    """On SQLite, leave the write lock free a moment between chunks so the webhook's waiting writers get it.

    SQLite's lock is not fair: a writer waiting on busy_timeout polls at
    growing intervals (up to 100 ms) and would keep missing a lock released
    and retaken at once. With held (seconds the lock was just held), the pause
    is the poll interval of a writer that waited that long, plus a margin:
    every writer that queued behind the chunk wakes within it. MySQL needs no
    pause: the population reads users as a consistent read (READ COMMITTED)
    and writes only item rows.
    """
    if db.engine.dialect.name != "sqlite":
        return
    time.sleep(SQLITE_CHUNK_PAUSE if held is None else sqlite_poll_interval(held) + SQLITE_WAKE_MARGIN)


def sqlite_poll_interval(waited: float) -> float:
    """Seconds between the polls of a writer that has waited `waited` s on SQLite's busy handler."""
    elapsed = 0
    for ms in SQLITE_BUSY_SLEEPS_MS:
        elapsed += ms
        if elapsed > waited * 1000:
            return ms / 1000
    return SQLITE_BUSY_SLEEPS_MS[-1] / 1000


def discard_draft(job_id: int, chunk: int | None = None) -> None:
    """Delete a draft job that never got queued: its items in short chunks, then the row."""
    chunk = chunk or DELETE_CHUNK
    while population_repo.delete_some(job_id, chunk):
        db.session.commit()
        let_writers_in()
    jobs_repo.delete_draft(job_id)
    db.session.commit()


def discard_abandoned_drafts(now: datetime | None = None) -> int:
    """Remove drafts whose population died with its process (older than DRAFT_ABANDONED); return how many."""
    now = now or db_utcnow()  # created_at is the database's time
    job_ids = jobs_repo.drafts_created_before(now - DRAFT_ABANDONED)
    db.session.commit()
    for job_id in job_ids:
        log.warning("broadcast job %s: a population that never finished is discarded", job_id)
        discard_draft(job_id)
    return len(job_ids)
