"""The sending rules a pump asks once per block: quiet hours (pause) and the frequency cap (skip).

Both are judged at claim time, under the lease, in the step's own transaction:
a population-time check would go stale for a scheduled or long job, and a
claim sees every copy another job committed before it (one job sends at a
time). Nothing here costs a statement per copy: quiet hours are arithmetic on
the lease's clock, the cap is one read per block (none when it is off) and
one UPDATE pair when it skips someone (one more in a chain step's job: the
skipped users' claims wait for the next Tehran day).
"""
from __future__ import annotations

from datetime import datetime

from app.models.broadcast import KIND_SEND, BroadcastJob
from app.repository import chains as chains_repo
from app.repository import sending_rules as repo
from app.services import audit
from app.services.broadcast.schedule import quiet_hours
from app.services.broadcast.sending.claims import Claim
from app.texts import t


class SendingRules:
    """One job's quiet hours and frequency cap, from the settings its pump started with."""

    def __init__(self, job: BroadcastJob, settings: dict, lang: str):
        self.job_id, self.lang = job.id, lang
        send = (job.kind or KIND_SEND) == KIND_SEND  # unsends and edits make no sound and send nothing new
        self.window = quiet_hours.window(settings) if send and not job.urgent else None
        # A drip chain's step: exempt from the cap when the admin says so (and then not counted toward it
        # either); otherwise a capped user's step waits for the next Tehran day instead of ending the chain.
        self.step_id = job.chain_step_id
        self.steps_count = not settings.get("chain_steps_exempt_from_cap")
        capped = send and (self.step_id is None or self.steps_count)
        self.cap = int(settings.get("max_broadcasts_per_user_per_day") or 0) if capped else 0
        self.reason: str | None = None  # the quiet-hours pause's reason, once this pump paused the job

    def quiet_pause(self, now: datetime) -> bool:
        """Pause the job (audited) when quiet hours hold it now, in the caller's transaction; True if this call did."""
        until = quiet_hours.quiet_until(self.window, now)
        if until is None:
            return False
        self.reason = t("reason_quiet_hours", self.lang, window=quiet_hours.digits(self.window.label(), self.lang),
                        until=quiet_hours.digits(quiet_hours.tehran_clock(until), self.lang))
        if not repo.pause_for_quiet(self.job_id, self.reason):
            return False
        # In the pause's own transaction, as quiet_release writes the resume's: the results picture
        # shades a pause from its audit rows, so a pause without one would never show.
        audit.record(audit.ACTOR_SYSTEM, audit.PAUSED, self.job_id, self.reason)
        return True

    def skip_capped(self, batch: list[Claim], now: datetime) -> list[Claim]:
        """Skip the block's recipients already at today's cap (Tehran day); return the claims still to send.

        A chain step's skipped users wait for the next Tehran day in the same
        transaction (their claims set to wait), so the skip never ends the chain.
        """
        if not self.cap or not batch:
            return batch
        capped = repo.capped_users(self.job_id, [c.user_id for c in batch], quiet_hours.tehran_day_start(now),
                                   self.cap, steps_count=self.steps_count)
        if not capped:
            return batch
        repo.skip_capped(self.job_id, [c.item_id for c in batch if c.user_id in capped])
        if self.step_id is not None:
            chains_repo.wait_for_next_day(self.step_id, self.job_id, sorted(capped),
                                          quiet_hours.next_tehran_day_start(now))
        return [c for c in batch if c.user_id not in capped]

