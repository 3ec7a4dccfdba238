"""A job's stored audience read back: its segment snapshot, or its base audience and filters."""
from __future__ import annotations

from app.models.audience import Audience
from app.models.broadcast import BroadcastJob
from app.models.segment_rule import Target


def audience_of(job: BroadcastJob) -> Audience | Target:
    """Return the audience a job was created for: its segment snapshot, or its base audience and filters."""
    if job.audience_rule:
        return Target.from_json(job.audience_rule)
    return Audience(job.audience, _listed(job.audience_langs), job.audience_active_days, job.audience_joined_days,
                    _listed(job.audience_sources))


def _listed(raw: str | None) -> tuple[str, ...]:
    """Return a comma-joined column as a tuple (empty for NULL)."""
    return tuple(raw.split(",")) if raw else ()
