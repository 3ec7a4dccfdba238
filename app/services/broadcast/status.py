"""A job's counters, rate and ETA as a JSON-safe dict (pure)."""
from __future__ import annotations

from datetime import datetime

from app.clock import utcnow
from app.models.broadcast import BroadcastJob


def _iso(value: datetime | None) -> str | None:
    """Render a naive-UTC timestamp as ISO 8601 with a Z."""
    return value.isoformat(timespec="seconds") + "Z" if value else None


def job_status(job: BroadcastJob, now: datetime | None = None) -> dict:
    """Return id, status, counters, rate (items/s since start) and ETA (s) of a job."""
    now = now or utcnow()
    processed = job.processed_count
    pending = job.pending_count
    rate = None
    eta = None
    if job.started_at:
        end = job.finished_at or now
        elapsed = max((end - job.started_at).total_seconds(), 0.001)
        rate = round(processed / elapsed, 2) if processed else 0.0
        if pending and rate:
            eta = int(round(pending / rate))
    if not pending:
        eta = 0
    return {
        "id": job.id, "status": job.status, "audience": job.audience,
        "total": job.total_count, "sent": job.sent_count, "failed": job.failed_count,
        "skipped": job.skipped_count, "unknown": job.unknown_count, "pending": pending,
        "rate": rate, "eta": eta, "pause_reason": job.pause_reason, "paid": bool(job.paid),
        "created_at": _iso(job.created_at), "started_at": _iso(job.started_at),
        "finished_at": _iso(job.finished_at),
    }
