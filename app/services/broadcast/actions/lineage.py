"""A broadcast and its retries: the copies an action on it covers, and the one row that serialises them.

A retry is a job with retry_of pointing at the job it re-sends; a retry of a
retry points at that retry. An unsend or edit of a broadcast covers the
broadcast and every retry below it. Every action and every retry first locks
the root of the chain (the broadcast nothing retries), so two of them on one
chain run one after the other, whichever member each was started from.
"""
from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models.broadcast import TERMINAL, BroadcastJobItem
from app.repository import broadcast_jobs as jobs_repo

# A chain is a handful of jobs; the bound only stops a corrupted cycle from looping.
MAX_DEPTH = 1000


def family(job_id: int) -> list[int]:
    """Return the job and every retry below it, in id order."""
    found, level = [job_id], [job_id]
    for _ in range(MAX_DEPTH):
        level = [j for j in jobs_repo.retries_of(level) if j not in found]
        if not level:
            break
        found.extend(level)
    return sorted(found)


def copies_held(job_id: int, user_id: int) -> dict[int, str | None]:
    """Return {job: the item's variant} of the user's copies that decide a press under job_id's copies.

    The one rule for a press on a button under a job's copies (the tap, the
    keyboard's tap and menu buttons, the unsubscribe button): accepted from a
    recipient of any job of the retry family (empty: refused), counted on the
    pressed job only when job_id is among them. A presser holding the pressed
    job's own copy (nearly every press) is settled by that one read; only
    otherwise is the family walked. Reads only, nothing locked.
    """
    own = db.session.execute(select(BroadcastJobItem.variant).where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.user_id == user_id)).first()
    if own is not None:
        return {job_id: own.variant}
    rows = db.session.execute(select(BroadcastJobItem.job_id, BroadcastJobItem.variant).where(
        BroadcastJobItem.job_id.in_(family(root(job_id))), BroadcastJobItem.user_id == user_id)).all()
    return {row.job_id: row.variant for row in rows}


def ancestors(job_id: int) -> list[int]:
    """Return the jobs the job retries, nearest first (empty for a broadcast nothing retries)."""
    chain: list[int] = []
    parent = jobs_repo.retry_parent(job_id)
    while parent is not None and parent not in chain and len(chain) < MAX_DEPTH:
        chain.append(parent)
        parent = jobs_repo.retry_parent(parent)
    return chain


def root(job_id: int) -> int:
    """Return the broadcast at the top of the job's retry chain."""
    chain = ancestors(job_id)
    return chain[-1] if chain else job_id


def lock(job_id: int) -> bool:
    """Start a transaction by locking the root of the job's chain; False when there is no such job.

    The chain is read first and committed (retry_of never changes once set):
    the lock must be the new transaction's first statement, since SQLite
    cannot turn a read transaction that another writer overtook into a write.
    """
    top = root(job_id)
    db.session.commit()
    return jobs_repo.lock_row(top)


def unfinished(job_ids: list[int]) -> tuple[int, str] | None:
    """Return (id, status) of the first of job_ids not yet completed or cancelled, or None."""
    for job_id, status in sorted(jobs_repo.statuses(job_ids).items()):
        if status not in TERMINAL:
            return job_id, status
    return None
