"""Where a job came from: an admin's own broadcast, a drip-chain step, or a recurring occurrence.

Automated jobs report differently (docs/RESULTS.md): a chain step's job
never messages the admins (its numbers are in /chains and one daily digest),
and a recurring occurrence's sends one short summary whose picture comes on
request; /jobs lists them apart from the admins' own broadcasts.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.models.broadcast import BroadcastJob
from app.repository import job_origin as repo

CHAIN, RECURRING = "chain", "recurring"


@dataclass(frozen=True)
class Origin:
    """An automated job's maker: CHAIN (of) a step, or RECURRING (of) a series."""

    kind: str
    of: int


def origin_of(job: BroadcastJob) -> Origin | None:
    """Return the automation that made the job, or None for an admin's own (and for every action job)."""
    if job.chain_step_id is not None:
        return Origin(CHAIN, job.chain_step_id)
    series = repo.series_of(job.id)
    return Origin(RECURRING, series) if series is not None else None


def newest(limit: int, *, automated: bool) -> list[BroadcastJob]:
    """Return the newest jobs first: the automated ones, or the admins' own."""
    return repo.newest(limit, made_by_automation=automated)
