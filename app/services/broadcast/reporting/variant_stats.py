"""A job's items counted per language variant: what `broadcast status` shows beside the job's counters."""
from __future__ import annotations

from app.extensions import db
from app.models.broadcast import FINAL_STATUSES, BroadcastJob
from app.repository import broadcast_ledger as ledger
from app.services.broadcast.content import variants


def counts(job: BroadcastJob) -> dict | None:
    """Return a job's items per language variant and status, or None when neither it nor its source has variants.

    {"default": {"total": n, "sent": n, ...}, "en": {...}}: every variant the
    job carries appears, with zeros when nobody got it; pending counts items
    not yet final (pending or in flight).
    """
    codes = list(variants.of(job))
    if not codes and job.source_job_id:
        source = db.session.get(BroadcastJob, job.source_job_id)
        codes = list(variants.of(source)) if source is not None else []
    if not codes:
        return None
    names = ("total", "pending", *(s.value for s in FINAL_STATUSES))
    out = {variants.label(code): dict.fromkeys(names, 0) for code in [None, *codes]}
    for code, per in ledger.variant_tallies(job.id).items():
        row = out.setdefault(variants.label(code), dict.fromkeys(names, 0))
        for status, n in per.items():
            row["total"] += n
            row[status if status in row else "pending"] += n
    return out
