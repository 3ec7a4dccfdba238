"""What a job's view offers after sending: only the actions that would act now (or in seconds), by their own checks."""
from __future__ import annotations

from app.models.broadcast import (
    CANCELLED,
    COMPLETED,
    KIND_EDIT,
    KIND_PIN,
    KIND_SEND,
    KIND_UNPIN,
    KIND_UNSEND,
    PAUSED,
    BroadcastJob,
)
from app.repository.db_clock import db_utcnow
from app.services.broadcast.actions import pin, retry, unsend_edit
from app.services.broadcast.jobs.status import Offers


def offers(job: BroadcastJob) -> Offers:
    """Return the retry counts (from the ledger) and whether unsend / edit would be accepted now."""
    if job.kind != KIND_SEND:
        return Offers()  # an unsend or edit job is itself an action: nothing to retry, unsend or edit
    found = {}
    if job.status in (COMPLETED, CANCELLED, PAUSED) and retry.blocker(job.id) is None:
        found = retry.candidates(job.id)
    return Offers(**found, unsend=_accepted(job, KIND_UNSEND), edit=_accepted(job, KIND_EDIT),
                  pin=_accepted(job, KIND_PIN, pin.check_pin), unpin=_accepted(job, KIND_UNPIN, pin.check_pin),
                  expire=_expirable(job))


# Refusals that pass within seconds (copies still on their way, or answers that may still land):
# the button stays, and a tap answers with how long to wait.
WAIT_A_LITTLE = ("act_in_flight", "act_landing")


def _accepted(job: BroadcastJob, kind: str, check=unsend_edit.check_source) -> bool:
    """Tell whether the action's own check would accept it now, or within seconds."""
    try:
        check(job, kind)
    except unsend_edit.NotActionable as refused:
        return refused.key in WAIT_A_LITTLE
    return True


def _expirable(job: BroadcastJob) -> bool:
    """Tell whether an auto-delete may be set (or cancelled): an expiry set, or copies not yet 48 hours old."""
    if job.expire_after is not None:
        return True
    return job.started_at is None or job.started_at + unsend_edit.DELETE_WINDOW > db_utcnow()
