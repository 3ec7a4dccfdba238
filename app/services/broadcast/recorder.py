"""The pump's database side: claim, mark in flight, record outcomes, breaker, completion.

Each step() is one short transaction that starts with the lease fence, so a
pump that lost its lease writes nothing, and the number of items marked
'sending' never exceeds the send window (the crash bound on 'unknown').

Outcomes are judged once, in memory (a Plan), then written. When the
database fails, the plans are kept and written by the next step, so an
outage of a few seconds loses no outcome; only a pump that dies (or loses
its lease) before writing them leaves its items 'sending', to be counted
'unknown' by the next lease holder.
"""
from __future__ import annotations

import logging
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import (
    ACTION_KINDS,
    CONTENT_TEXT,
    ITEM_FAILED,
    KIND_EDIT,
    PENDING,
    SENT,
    BroadcastJob,
    ItemStatus,
)
from app.repository import broadcast_items as items
from app.repository import broadcast_jobs as jobs_repo
from app.services import audit
from app.services.broadcast import alerts
from app.services.broadcast import outcomes as oc
from app.services.broadcast.greeting import has_greeting
from app.services.broadcast.progress import refresh_progress
from app.services.broadcast.stops import Stop
from app.telegram.client import LOW
from app.texts import t

log = logging.getLogger(__name__)


@dataclass
class Plan:
    """The writes that record one group of finished sends (judged once, written until it sticks)."""

    finals: dict[tuple[str, str], list[int]] = field(default_factory=lambda: defaultdict(list))
    # (item id, message id) of sent items: written by one UPDATE that sets each item's own message id.
    sent: list[tuple[int, int | None]] = field(default_factory=list)
    # An album's sent items: item id -> every part's copy, written by the same UPDATE.
    parts: dict[int, tuple[int, ...]] = field(default_factory=dict)
    back: list[int] = field(default_factory=list)
    reopen: list[int] = field(default_factory=list)
    blocked: list[int] = field(default_factory=list)
    not_before: object = None
    recorded: int = 0


class Recorder:
    """Owns the claimed queue and every write of the dispatch loop (the lease's take and release are the Lease's)."""

    def __init__(self, pump, job: BroadcastJob, window: int):
        s = pump.settings
        self.p, self.job_id, self.window = pump, job.id, window
        self.lease = pump.lease
        self.batch_size = max(s["broadcast_batch_size"], window)
        self.max_errors = s["broadcast_max_consecutive_errors"]
        self.progress_every = s["broadcast_progress_every"]
        self.progress_min_seconds = s["broadcast_progress_min_seconds"]
        self.urgent_edit_at = pump.clock() + self.progress_min_seconds
        self.lang = job.progress_lang or "fa"
        self.has_progress = bool(job.progress_message_id)
        self.paid_limit = job.paid_limit if job.paid else None
        self.charged = job.sent_count + job.unknown_count
        self.queue: deque[tuple[int, int]] = deque()
        # A personal greeting needs each claimed recipient's (first name, language code): a text
        # broadcast's, or any edit's (the new text or caption is ours, whatever the source was).
        self.personal = (job.content_type == CONTENT_TEXT or job.kind == KIND_EDIT) and has_greeting(job.text)
        self.names: dict[int, tuple[str | None, str | None]] = {}
        # An action job (unsend, edit) reads each claimed item's copy: (message id, an album's part ids).
        self.action = job.kind in ACTION_KINDS
        self.targets: dict[int, tuple[int, list[int] | None]] = {}
        self.last_id, self.exhausted = 0, False
        self.streak, self.streak_failed, self.last_error = 0, [], ""
        self.since_progress = 0
        self.paused_reason: str | None = None
        # True once this pump's own pause UPDATE matched in the last committed step: it alone alerts.
        self.paused_here = False
        self.plans: list[Plan] = []
        self.db_error: SQLAlchemyError | None = None
        self.processed = 0  # outcomes this pump recorded (read by the pump for its result)

    def step(self, done: list, want: int, in_flight: int) -> list[tuple[int, int]]:
        """Record finished sends and mark up to `want` new items in flight, in one transaction."""
        if done:
            self.plans.append(self._plan(done))
        if not self.plans and (want <= 0 or (not self.queue and self.exhausted)):
            return []
        self.paused_here = False
        try:
            if not self._fence(want > 0):
                return []
            for plan in self.plans:
                self._write(plan)
            if self.p.stop:
                want = 0
            else:
                self._rescan([i for plan in self.plans for i in plan.back])
            batch = self._take(self._apply_paid_cap(want))
            if batch and items.mark_sending([i for i, _ in batch]) != len(batch):
                raise RuntimeError("claimed items changed under a held lease")
            db.session.commit()
        except SQLAlchemyError as exc:
            # Keep the plans: the next step writes them. Dispatch stops, so the
            # window in flight drains and is recorded once the database answers.
            db.session.rollback()
            self.paused_here = False
            self.db_error = exc
            self.p.stop = self.p.stop or Stop.DB_ERROR
            log.warning("job %s: database error while recording (%s); outcomes kept for the next try",
                        self.job_id, type(exc).__name__)
            return []
        except Exception:
            db.session.rollback()
            raise
        self.db_error = None
        self.charged += len(batch)
        for plan in self.plans:
            self.processed += plan.recorded
            self.since_progress += plan.recorded
        self.plans = []
        self._after_commit()
        return batch

    def heartbeat(self) -> None:
        """Renew the lease in a transaction of its own (nothing else to write while sends wait)."""
        try:
            if not self.lease.fence(require_running=False):
                self.p.stop = Stop.LEASE_LOST
                log.warning("job %s: lease lost while waiting; this pump stops without writing", self.job_id)
            db.session.commit()
        except SQLAlchemyError:
            db.session.rollback()  # the next step or heartbeat tries again
            log.warning("job %s: lease renewal failed; will retry", self.job_id, exc_info=True)

    def settle(self, attempts_delays: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0)) -> None:
        """Write outcomes a database error left unwritten; raise its error if it persists."""
        for delay in attempts_delays:
            if not self.plans:
                return
            self.p.sleep(delay)
            self.step([], 0, 0)
        if self.plans and self.db_error is not None:
            raise self.db_error

    def _fence(self, dispatching: bool) -> bool:
        """Prove the lease (and, when dispatching, that the job still runs)."""
        if dispatching and self.lease.fence(require_running=True):
            return True
        if not self.lease.fence(require_running=False):
            db.session.rollback()
            self.p.stop = Stop.LEASE_LOST
            log.warning("job %s: lease lost; this pump stops without writing", self.job_id)
            return False
        if dispatching:
            status = db.session.execute(select(BroadcastJob.status).where(BroadcastJob.id == self.job_id)).scalar()
            self.p.stop = self.p.stop or Stop.from_job_status(status)
            self.p.halt()
        return True

    def _plan(self, done: list) -> Plan:
        """Judge finished sends once: item statuses, blocked users, the breaker, retry_after."""
        plan = Plan()
        retry_after = 0.0
        for item_id, user_id, outcome in done:
            kind = outcome.kind
            if kind == oc.FAILED and self.p.stop == Stop.BREAKER:
                kind = oc.NOT_SENT  # in flight when the breaker opened: same fault, not the recipient's
            if kind == oc.SENT:
                plan.sent.append((item_id, outcome.message_id))
                if outcome.message_ids:
                    plan.parts[item_id] = outcome.message_ids
            elif kind.status is not None:
                plan.finals[(kind.status, outcome.error or "")].append(item_id)
            else:
                plan.back.append(item_id)
            if kind != oc.SENT and kind != oc.UNKNOWN:
                self.charged -= 1
            if outcome.blocked:
                plan.blocked.append(user_id)
            if kind != oc.NOT_SENT or outcome.kind == oc.NOT_SENT:
                retry_after = self._judge(item_id, outcome, retry_after)
        if self.streak >= self.max_errors:
            self._trip(plan)
        plan.recorded = len(done) - len(plan.back)
        if retry_after:
            plan.not_before = self.lease.now() + timedelta(seconds=retry_after)
        return plan

    def _write(self, plan: Plan) -> None:
        """Write one plan; counters move by the rows really changed, so a replay adds nothing."""
        now = self.lease.now()
        counts: dict[ItemStatus, int] = defaultdict(int)
        if self.action:  # the item keeps the id of the copy it acted on
            counts[SENT] += items.set_done([item_id for item_id, _ in plan.sent], now)
        else:
            counts[SENT] += items.set_sent(plan.sent, now, plan.parts)
        for (status, error), ids in plan.finals.items():
            counts[status] += items.set_final(ids, status, now, error)
        items.set_final(plan.back, PENDING, now)
        reopened = items.reopen_failed(plan.reopen)
        if reopened:
            counts[ITEM_FAILED] -= reopened
        jobs_repo.add_counts(self.job_id, **counts)
        items.block_users(plan.blocked, now)
        if plan.not_before is not None:
            jobs_repo.set_not_before(self.job_id, self.lease.token, plan.not_before)
        if self.paused_reason:
            self._pause()

    def _pause(self) -> None:
        """Pause the job with the audit row in the same transaction; only a matched UPDATE alerts later."""
        if jobs_repo.pause(self.job_id, self.paused_reason):
            audit.record(audit.ACTOR_SYSTEM, audit.PAUSED, self.job_id, self.paused_reason)
            self.paused_here = True

    def _judge(self, item_id: int, outcome, retry_after: float) -> float:
        """Update the error streak and stop reasons for one outcome; return the longest retry_after."""
        if outcome.kind.clears_streak:
            self.streak, self.streak_failed = 0, []
        elif outcome.systemic:
            self.streak += 1
            self.last_error = outcome.error or ""
            if outcome.kind == oc.FAILED:
                self.streak_failed.append(item_id)
        elif outcome.kind == oc.RATE_LIMITED:
            # Telegram's 429 explains a "budget" stop seen first by our own pacer.
            self.p.stop = Stop.RATE_LIMITED if self.p.stop in (None, Stop.BUDGET) else self.p.stop
            return max(retry_after, outcome.retry_after)
        elif outcome.kind == oc.NOT_SENT:
            self.p.stop = self.p.stop or Stop.NETWORK
        elif outcome.kind == oc.OUT_OF_BUDGET:
            self.p.stop = self.p.stop or Stop.BUDGET
        elif outcome.kind == oc.BOT_ERROR and not self.paused_reason:
            self.p.stop = Stop.UNAUTHORIZED
            self.paused_reason = t("reason_unauthorized", self.lang)
        return retry_after

    def _trip(self, plan: Plan) -> None:
        """Open the breaker: the streak's failed items go back to pending and the job pauses."""
        streak_ids = set(self.streak_failed)
        for key in [k for k in plan.finals if k[0] == ITEM_FAILED]:
            here = [i for i in plan.finals[key] if i in streak_ids]
            plan.finals[key] = [i for i in plan.finals[key] if i not in streak_ids]
            plan.back.extend(here)
            streak_ids -= set(here)
        # Failed items of the streak already written by earlier steps.
        plan.reopen = list(streak_ids)
        self.p.stop = Stop.BREAKER
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
            self._pause()
            self.p.stop = Stop.PAID_CAP
        return 0

    def _take_peek(self) -> bool:
        """Tell whether any pending item is left to send."""
        self._fill(1)
        return bool(self.queue)

    def _rescan(self, back: list[int]) -> None:
        """Read again from the first item that went back to pending (a send held back by a 429 elsewhere)."""
        if back:
            self.queue.clear()
            self.last_id = min(self.last_id, min(back) - 1)
            self.exhausted = False

    def _fill(self, need: int) -> None:
        """Read the next pending items (in id order) until the queue holds `need` or none are left."""
        while len(self.queue) < need and not self.exhausted:
            rows = self._next_pending()
            if rows:
                self.last_id = rows[-1][0]
                self.queue.extend(rows)
            if len(rows) < self.batch_size:
                self.exhausted = True

    def _next_pending(self) -> list[tuple[int, int]]:
        """Read the next batch of pending (item id, user id), remembering names for a personal greeting."""
        if self.action:
            rows = items.next_pending_targets(self.job_id, self.last_id, self.batch_size)
            self.targets.update({row[1]: (row[2], row[3]) for row in rows})
            if self.personal:
                self.names.update({row[1]: (row[4], row[5]) for row in rows})
            return [(row[0], row[1]) for row in rows]
        if not self.personal:
            return items.next_pending(self.job_id, self.last_id, self.batch_size)
        rows = items.next_pending_named(self.job_id, self.last_id, self.batch_size)
        self.names.update({user_id: (first_name, code) for _, user_id, first_name, code in rows})
        return [(item_id, user_id) for item_id, user_id, _, _ in rows]

    def _take(self, want: int) -> list[tuple[int, int]]:
        """Pop up to `want` claimed items."""
        if want <= 0:
            return []
        self._fill(want)
        return [self.queue.popleft() for _ in range(min(want, len(self.queue)))]

    def _after_commit(self) -> None:
        """Tell the admins: throttled progress edits, and a pause alert if this step paused the job (best effort)."""
        try:
            if self.paused_here:
                self.paused_here = False
                alerts.job_paused(self.job_id, self.paused_reason, outbox=self.p.outbox)
                self.p.flush_outbox()
            if self.has_progress and self.since_progress >= self.progress_every:
                self.since_progress = 0
                # Progress edits give way to replies and sends (they take a
                # bot-wide slot only when one is free), except one every
                # broadcast_progress_min_seconds, which waits its turn.
                urgent = self.p.clock() >= self.urgent_edit_at
                if urgent:
                    self.urgent_edit_at = self.p.clock() + self.progress_min_seconds
                refresh_progress(self.job_id, outbox=self.p.outbox, lang=self.lang,
                                 priority=None if urgent else LOW)
                self.p.flush_outbox()
        except Exception:
            # The batch just marked 'sending' must still go out: a failed
            # progress read or edit is never worth turning it into 'unknown'.
            db.session.rollback()
            log.warning("job %s: progress update skipped", self.job_id, exc_info=True)

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
            done = jobs_repo.complete_if_done(self.job_id, self.lease.token, self.lease.now())
            db.session.commit()
        except Exception:
            db.session.rollback()
            raise
        if done:
            log.info("job %s completed", self.job_id)
            # complete_if_done matched for this pump alone, so the summary goes out once.
            self._best_effort(lambda job_id, outbox, lang: alerts.job_finished(job_id, outbox=outbox))
            return Stop.DONE
        return Stop.INCOMPLETE

    def finish(self) -> None:
        """Leave the progress message showing where the job stands."""
        if self.has_progress and self.p.stop != Stop.DONE:
            self._best_effort(refresh_progress)

    def _best_effort(self, notify) -> None:
        """Run a progress/summary update; its failure never changes what was sent or recorded."""
        try:
            notify(self.job_id, outbox=self.p.outbox, lang=self.lang)
        except Exception:
            db.session.rollback()
            log.warning("job %s: progress update skipped", self.job_id, exc_info=True)
