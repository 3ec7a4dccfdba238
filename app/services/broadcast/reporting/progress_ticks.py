"""When a pump edits its progress message and alerts a pause: throttled, best effort, after each committed step."""
from __future__ import annotations

import logging

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.services.broadcast.reporting.notifier import Notifier
from app.telegram.call_pacing import LOW

log = logging.getLogger(__name__)

# A progress text (the job's counters, the settings, cron's last call: five reads) is built at
# most this often: the admin's chat takes about one edit a second, and the outbox keeps only
# the newest text of one message, so texts built faster were read and thrown away.
PROGRESS_FLOOR_SECONDS = 1.0
FIRST_EDIT_SECONDS = 1.0


class ProgressTicks:
    """A pump's progress edits: every broadcast_progress_every outcomes, at most once a second, some urgent.

    Progress edits give way to replies and sends (they take a bot-wide slot
    only when one is free), except one every broadcast_progress_min_seconds,
    which waits its turn. While the pump books the lane full (``lane_full``) a
    giving-way edit finds no slot, so its text is not even built.
    """

    def __init__(self, job: BroadcastJob, notifier: Notifier, settings: dict, clock, lane_full):
        self.job_id, self.notifier, self.clock, self.lane_full = job.id, notifier, clock, lane_full
        self.lang = job.progress_lang or "fa"
        self.has_progress = bool(job.progress_message_id)
        self.every = settings["broadcast_progress_every"]
        self.min_seconds = settings["broadcast_progress_min_seconds"]
        # The first edit that waits its turn comes after a second: a broadcast that books the lane
        # full leaves giving-way edits no slot, and the admin should see it move at once.
        self.urgent_at = clock() + min(FIRST_EDIT_SECONDS, self.min_seconds)
        self.build_at = clock()  # the next text is built no sooner (PROGRESS_FLOOR_SECONDS)
        self.since = 0  # outcomes recorded since the last text

    def after_commit(self, recorded: int, paused_reason: str | None) -> None:
        """Tell the admins after a committed step: a pause alert if it paused the job, a throttled progress edit."""
        self.since += recorded
        try:
            if paused_reason:
                self.notifier.paused(self.job_id, paused_reason)
                self.notifier.flush()
            if self.has_progress and self.since >= self.every:
                self.since = 0
                if self.clock() >= self.build_at and (self.urgent_due() or not self.lane_full()):
                    self._queue()
                # Tried again at every tick: a low-priority edit goes once a slot is free at one of them.
                self.notifier.flush()
        except Exception:
            # The batch just marked 'sending' must still go out: a failed
            # progress read or edit is never worth turning it into 'unknown'.
            db.session.rollback()
            log.warning("job %s: progress update skipped", self.job_id, exc_info=True)

    def _queue(self) -> None:
        """Build the progress text and queue its edit (urgent once broadcast_progress_min_seconds passed)."""
        self.build_at = self.clock() + PROGRESS_FLOOR_SECONDS
        urgent = self.urgent_due()
        if urgent:
            self.urgent_at = self.clock() + self.min_seconds
        self.notifier.progress(self.job_id, self.lang, priority=None if urgent else LOW)

    def urgent_due(self) -> bool:
        """True once broadcast_progress_min_seconds passed since the last edit that waits its turn."""
        return self.clock() >= self.urgent_at

    def finish(self, done: bool) -> None:
        """Leave the progress message showing where the job stands (not when it completed: the summary does)."""
        if self.has_progress and not done:
            self.best_effort(lambda: self.notifier.progress(self.job_id, self.lang))

    def best_effort(self, notify) -> None:
        """Run a progress/summary update; its failure never changes what was sent or recorded."""
        try:
            notify()
        except Exception:
            db.session.rollback()
            log.warning("job %s: progress update skipped", self.job_id, exc_info=True)
