"""What a job's view offers after sending: only the actions that would act now (or in seconds), by their own checks."""
from __future__ import annotations

from app.models.broadcast import CANCELLED, COMPLETED, KIND_EDIT, KIND_SEND, KIND_UNSEND, PAUSED, BroadcastJob
from app.services.broadcast.actions import retry, unsend_edit
from app.services.broadcast.jobs.status import Offers


def offers(job: BroadcastJob) -> Offers:
    """Return the retry counts (from the ledger) and whether unsend / edit would be accepted now."""
    if job.kind != KIND_SEND:
        return Offers()  # an unsend or edit job is itself an action: nothing to retry, unsend or edit
    found = {}
    if job.status in (COMPLETED, CANCELLED, PAUSED) and retry.blocker(job.id) is None:
        found = retry.candidates(job.id)
    return Offers(**found, unsend=_accepted(job, KIND_UNSEND), edit=_accepted(job, KIND_EDIT))


# Refusals that pass within seconds (copies still on their way, or answers that may still land):
# the button stays, and a tap answers with how long to wait.
WAIT_A_LITTLE = ("act_in_flight", "act_landing")


def _accepted(job: BroadcastJob, kind: str) -> bool:
    """Tell whether the action's own check would accept it now, or within seconds."""
    try:
        unsend_edit.check_source(job, kind)
    except unsend_edit.NotActionable as refused:
        return refused.key in WAIT_A_LITTLE
    return True
