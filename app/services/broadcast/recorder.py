"""The pump's database side: claim, mark in flight, record outcomes, breaker, completion.

Each step() is one short transaction that starts with the lease fence, so a
pump that lost its lease writes nothing, and the number of items marked
'sending' never exceeds the send window (the crash bound on 'unknown').
"""
from __future__ import annotations

import logging
from collections import defaultdict, deque

from sqlalchemy import select

from app.clock import utcnow
from app.extensions import db
from app.models.broadcast import ITEM_FAILED, PENDING, SENT, SKIPPED, UNKNOWN, BroadcastJob
from app.repository import broadcast_items as items
from app.repository import broadcast_jobs as jobs_repo
from app.services.broadcast import outcomes as oc
from app.services.broadcast.progress import progress_keyboard, refresh_progress, send_summary
from app.texts import t

log = logging.getLogger(__name__)
FINAL_STATUS = {oc.SKIPPED: SKIPPED, oc.FAILED: ITEM_FAILED, oc.UNKNOWN: UNKNOWN}


class Recorder:
    """Owns the claimed queue and every write a pump makes."""

    def __init__(self, pump, job: BroadcastJob, window: int):
        s = pump.settings
        self.p, self.job_id, self.window = pump, job.id, window
        self.batch_size = max(s["broadcast_batch_size"], window)
        self.max_errors = s["broadcast_max_consecutive_errors"]
        self.progress_every = s["broadcast_progress_every"]
        self.lang = job.progress_lang or "fa"
        self.has_progress = bool(job.progress_message_id)
        self.paid_limit = job.paid_limit if job.paid else None
        self.charged = job.sent_count + job.unknown_count
        self.queue: deque[tuple[int, int]] = deque()
        self.last_id, self.exhausted = 0, False
        self.streak, self.streak_failed, self.last_error = 0, [], ""
        self.since_progress = 0
        self.paused_reason: str | None = None
        pump.processed = 0

    @staticmethod
    def expire_orphans(job_id: int) -> None:
        """Count a dead pump's in-flight items as unknown (inside the acquiring transaction)."""
        n = items.expire_orphans(job_id)
        if n:
            jobs_repo.add_counts(job_id, unknown=n)
            log.warning("job %s: %s items left in flight by a stopped pump are now 'unknown'", job_id, n)

    def step(self, done: list, want: int, in_flight: int) -> list[tuple[int, int]]:
        """Record finished sends and mark up to `want` new items in flight, in one transaction."""
        if not done and (want <= 0 or (not self.queue and self.exhausted)):
            return []
        try:
            if not self._fence(want > 0):
                return []
            if done:
                self._record(done)
            if self.p.stop:
                want = 0
            batch = self._take(self._apply_paid_cap(want))
            if batch and items.mark_sending([i for i, _ in batch]) != len(batch):
                raise RuntimeError("claimed items changed under a held lease")
            self.charged += len(batch)
            db.session.commit()
        except Exception:
            db.session.rollback()
            raise
        self._after_commit()
        return batch

    def _fence(self, dispatching: bool) -> bool:
        """Prove the lease (and, when dispatching, that the job still runs)."""
        if dispatching and self.p.fence(require_running=True):
            return True
        if not self.p.fence(require_running=False):
            db.session.rollback()
            self.p.stop = "lease_lost"
            log.warning("job %s: lease lost; this pump stops without writing", self.job_id)
            return False
        if dispatching:
            status = db.session.execute(select(BroadcastJob.status).where(BroadcastJob.id == self.job_id)).scalar()
            self.p.stop = self.p.stop or status
        return True

    def _record(self, done: list) -> None:
        """Write outcomes grouped by status, move counters atomically, run the breaker."""
        now = utcnow()
        sent, back, blocked = [], [], []
        finals: dict[tuple[str, str], list[int]] = defaultdict(list)
        retry_after = 0.0
        for item_id, user_id, outcome in done:
            kind = outcome.kind
            if kind == oc.FAILED and self.p.stop == "breaker":
                kind = oc.NOT_SENT  # in flight when the breaker opened: same fault, not the recipient's
            if kind == oc.SENT:
                sent.append(item_id)
            elif kind in FINAL_STATUS:
                finals[(FINAL_STATUS[kind], outcome.error or "")].append(item_id)
            else:
                back.append(item_id)
            if kind != oc.SENT and kind != oc.UNKNOWN:
                self.charged -= 1
            if outcome.blocked:
                blocked.append(user_id)
            if kind != oc.NOT_SENT or outcome.kind == oc.NOT_SENT:
                retry_after = self._judge(item_id, outcome, retry_after)
        if self.streak >= self.max_errors:
            self._trip(finals, back)
        items.set_final(sent, SENT, now)
        for (status, error), ids in finals.items():
            items.set_final(ids, status, now, error)
        items.set_final(back, PENDING, now)
        counts = {"sent": len(sent)}
        for (status, _), ids in finals.items():
            key = {ITEM_FAILED: "failed", SKIPPED: "skipped", UNKNOWN: "unknown"}[status]
            counts[key] = counts.get(key, 0) + len(ids)
        jobs_repo.add_counts(self.job_id, **counts)
        items.block_users(blocked, now)
        recorded = len(done) - len(back)
        self.p.processed += recorded
        self.since_progress += recorded
        if retry_after:
            jobs_repo.set_not_before(self.job_id, self.p.token, now + _seconds(retry_after))
        if self.paused_reason:
            jobs_repo.pause(self.job_id, self.paused_reason)

    def _judge(self, item_id: int, outcome, retry_after: float) -> float:
        """Update the error streak and stop reasons for one outcome; return the longest retry_after."""
        if outcome.kind in (oc.SENT, oc.SKIPPED):
            self.streak, self.streak_failed = 0, []
        elif outcome.systemic:
            self.streak += 1
            self.last_error = outcome.error or ""
            if outcome.kind == oc.FAILED:
                self.streak_failed.append(item_id)
        elif outcome.kind == oc.RATE_LIMITED:
            # Telegram's 429 explains a "budget" stop seen first by our own pacer.
            self.p.stop = "rate_limited" if self.p.stop in (None, "budget") else self.p.stop
            return max(retry_after, outcome.retry_after)
        elif outcome.kind == oc.NOT_SENT:
            self.p.stop = self.p.stop or "network"
        elif outcome.kind == oc.OUT_OF_BUDGET:
            self.p.stop = self.p.stop or "budget"
        elif outcome.kind == oc.BOT_ERROR and not self.paused_reason:
            self.p.stop = "unauthorized"
            self.paused_reason = t("reason_unauthorized", self.lang)
        return retry_after

    def _trip(self, finals: dict, back: list) -> None:
        """Open the breaker: the streak's failed items go back to pending and the job pauses."""
        streak_ids = set(self.streak_failed)
        earlier = []
        for key in [k for k in finals if k[0] == ITEM_FAILED]:
            here = [i for i in finals[key] if i in streak_ids]
            finals[key] = [i for i in finals[key] if i not in streak_ids]
            back.extend(here)
            streak_ids -= set(here)
        earlier = list(streak_ids)
        reopened = items.reopen_failed(earlier)
        if reopened:
            jobs_repo.add_counts(self.job_id, failed=-reopened)
        self.p.stop = "breaker"
        if not self.paused_reason:
            self.paused_reason = t("reason_breaker", self.lang, n=self.streak, error=self.last_error[:120])
        log.warning("job %s: %s non-recipient errors in a row (%s); pausing", self.job_id, self.streak, self.last_error)
        self.streak, self.streak_failed = 0, []

    def _apply_paid_cap(self, want: int) -> int:
        """Never dispatch past the job's cap on paid messages; pause when it is reached."""
        if self.paid_limit is None or want <= 0:
            return want
        room = self.paid_limit - self.charged
        if room > 0:
            return min(want, room)
        if self._take_peek():
            self.paused_reason = t("reason_paid_cap", self.lang, cap=self.paid_limit)
            jobs_repo.pause(self.job_id, self.paused_reason)
            self.p.stop = "paid_cap"
        return 0

    def _take_peek(self) -> bool:
        """Tell whether any pending item is left to send."""
        self._fill(1)
        return bool(self.queue)

    def _fill(self, need: int) -> None:
        """Read the next pending items (in id order) until the queue holds `need` or none are left."""
        while len(self.queue) < need and not self.exhausted:
            rows = items.next_pending(self.job_id, self.last_id, self.batch_size)
            if rows:
                self.last_id = rows[-1][0]
                self.queue.extend(rows)
            if len(rows) < self.batch_size:
                self.exhausted = True

    def _take(self, want: int) -> list[tuple[int, int]]:
        """Pop up to `want` claimed items."""
        if want <= 0:
            return []
        self._fill(want)
        return [self.queue.popleft() for _ in range(min(want, len(self.queue)))]

    def _after_commit(self) -> None:
        """Tell the admin: throttled progress edits, and a one-time pause alert."""
        if self.paused_reason and not getattr(self, "_alerted", False):
            self._alerted = True
            self._alert_pause()
        if self.has_progress and self.since_progress >= self.progress_every:
            self.since_progress = 0
            refresh_progress(self.job_id, outbox=self.p.outbox, lang=self.lang)
            self.p.outbox.flush(wait=False)

    def _alert_pause(self) -> None:
        """Send the admins a pause notice with a resume button."""
        job = db.session.get(BroadcastJob, self.job_id)
        chat_id = job.progress_chat_id or job.created_by
        db.session.commit()
        if chat_id:
            self.p.outbox.send(chat_id, t("paused_alert", self.lang, id=self.job_id, reason=self.paused_reason),
                               reply_markup=progress_keyboard(self.job_id, "paused", self.lang))

    @property
    def may_have_more(self) -> bool:
        """True unless every pending item seen so far has been dispatched and none are left."""
        return bool(self.queue) or not self.exhausted

    @property
    def drained(self) -> bool:
        """True when every pending item seen has been dispatched and none are left."""
        return self.exhausted and not self.queue

    def idle_reason(self) -> str:
        """Nothing in flight and nothing to claim: complete the job if every item is final."""
        try:
            done = jobs_repo.complete_if_done(self.job_id, self.p.token, utcnow())
            db.session.commit()
        except Exception:
            db.session.rollback()
            raise
        if done:
            log.info("job %s completed", self.job_id)
            send_summary(self.job_id, outbox=self.p.outbox, lang=self.lang)
            return "done"
        return "incomplete"

    def finish(self) -> None:
        """Leave the progress message showing where the job stands."""
        if self.has_progress and self.p.stop != "done":
            refresh_progress(self.job_id, outbox=self.p.outbox, lang=self.lang)


def _seconds(value: float):
    """Return a timedelta of value seconds."""
    from datetime import timedelta

    return timedelta(seconds=value)
