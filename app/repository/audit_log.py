"""Audit rows: insert one in the caller's transaction, read them back newest or per job."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from app.extensions import db
from app.models.audit import AuditEntry


def insert(at: datetime, actor: str, action: str, job_id: int | None, detail: str | None) -> None:
    """Add one row to the caller's transaction (it commits, or rolls back with the action itself)."""
    db.session.add(AuditEntry(at=at, actor=actor, action=action, job_id=job_id, detail=detail))


def for_job(job_id: int, limit: int) -> list[AuditEntry]:
    """Return a job's newest `limit` entries, oldest first (a backward scan of the (job_id, id) index)."""
    stmt = select(AuditEntry).where(AuditEntry.job_id == job_id).order_by(AuditEntry.id.desc()).limit(limit)
    return list(reversed(db.session.execute(stmt).scalars().all()))


def newest(limit: int) -> list[AuditEntry]:
    """Return the newest entries of any kind, newest first."""
    return list(db.session.execute(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)).scalars())
