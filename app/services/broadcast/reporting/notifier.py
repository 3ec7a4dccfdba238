"""A pump's messages to the admins (pause alerts, progress edits, the summary) and how long its thread flushes them."""
from __future__ import annotations

from app.services.broadcast.reporting import alerts
from app.services.broadcast.reporting.progress import refresh_progress

# The pump's thread gives progress edits at most this long per flush: they are
# best effort, and whatever Telegram delays stays queued for the next flush.
PROGRESS_FLUSH_SECONDS = 0.25


class Notifier:
    """Queues a pump's admin messages on its outbox; never holds the pump's thread past its deadline."""

    def __init__(self, outbox, clock, deadline: float, *, worker: bool = False):
        # worker: the outbox has a thread of its own that sends (the pump's own outbox).
        self.outbox, self.clock, self.deadline, self.worker = outbox, clock, deadline, worker

    def paused(self, job_id: int, reason: str) -> None:
        """Queue the alert that the job paused."""
        alerts.job_paused(job_id, reason, outbox=self.outbox)

    def finished(self, job_id: int) -> None:
        """Queue the summary of a completed job."""
        alerts.job_finished(job_id, outbox=self.outbox)

    def progress(self, job_id: int, lang: str, priority=None) -> None:
        """Queue an edit of the job's progress message."""
        refresh_progress(job_id, outbox=self.outbox, lang=lang, priority=priority)

    def flush(self) -> None:
        """Send ready messages: an outbox with its own thread needs nothing; a caller's gets a short flush."""
        if self.worker:
            return
        until = min(self.deadline, self.clock() + PROGRESS_FLUSH_SECONDS)
        self.outbox.flush(deadline=until, wait=False)
