"""The pump's database side: claim, mark in flight, record outcomes, apply the breaker, completion.

Each step() is one short transaction that starts with the lease fence, so a
pump that lost its lease writes nothing, and the number of items marked
'sending' never exceeds the send window (the crash bound on 'unknown').

Outcomes are judged once, in memory (a Plan), then written. When the
database fails, the plans are kept and written by the next step, so an
outage of a few seconds loses no outcome; only a pump that dies (or loses
its lease) before writing them leaves its items 'sending', to be counted
'unknown' by the next lease holder.

The Recorder never sees the pump: each call returns what the pump must
know (a StepResult, a Stop), and the pump decides its own stop from it.
"""
from __future__ import annotations

import logging
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import timedelta
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import (
    ACTION_KINDS,
    ITEM_FAILED,
    PENDING,
    SENT,
    BroadcastJob,
    ItemStatus,
)
from app.repository import broadcast_claims as claims
from app.repository import broadcast_jobs as jobs_repo
from app.repository.deadlocks import in_transaction, is_deadlock
from app.services import audit
from app.services.broadcast import breaker, landing
from app.services.broadcast import outcomes as oc
from app.services.broadcast.greeting import is_personal
from app.services.broadcast.lease import Lease
from app.services.broadcast.notifier import Notifier
from app.services.broadcast.stops import Stop
from app.telegram.client import LOW
from app.texts import t

log = logging.getLogger(__name__)

# A step MySQL rolled back as a deadlock's victim runs again at once, up to this many tries in all,
# the n-th waiting n times the backoff: the other transaction is short and has commit to do.
DEADLOCK_ATTEMPTS = 3
DEADLOCK_BACKOFF_SECONDS = 0.02
# Pending items read at once (at least): a block at the cap is 29 sends, a paid one up to a thousand.
CLAIMS_PER_READ = 200
MAX_CLAIMS_PER_READ = 2000
# How often one run reads its pending items again from the start before it stops 'incomplete'.
IDLE_RESCANS = 3
# A progress text (the job's counters, the settings, cron's last call: four reads) is built at
# most this often: the admin's chat takes about one edit a second, and the outbox keeps only
# the newest text of one message, so texts built faster were read and thrown away.
PROGRESS_FLOOR_SECONDS = 1.0


class Claim(NamedTuple):
    """One item claimed for sending, with what its send needs."""

    item_id: int
    user_id: int
    # A personal greeting's recipient: first name and Telegram language code (None when unknown).
    first_name: str | None = None
    language_code: str | None = None
    # An action's copy (unsend, edit): its message id, and an album's part ids.
    message_id: int | None = None
    part_ids: list[int] | None = None
    # The recipient's language variant (None: the default content).
    variant: str | None = None


@dataclass(frozen=True)
class StepResult:
    """What one step did: the items it marked in flight, the pump's stop after it, the outcomes it wrote."""

    claimed: tuple[Claim, ...] = ()
    stop: Stop | None = None  # why dispatch must stop (None: go on)
    recorded: int = 0
    halt: bool = False  # the job no longer runs: no send of this pump may start any more


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
    """Owns the claimed queue and the loop's writes to the job and its items.

    The lease's take and release are the Lease's; the bot-wide slot bookings
    and 429 holds are the budget's, written by the send threads too.
    """

    def __init__(self, job: BroadcastJob, window: int, *, lease: Lease, notifier: Notifier, settings: dict,
                 clock, sleep, lane_full=lambda: False):
        self.job_id, self.window = job.id, window
        self.lease, self.notifier, self.clock, self.sleep = lease, notifier, clock, sleep
        # Whether this pump books the bot-wide lane full: a low-priority progress edit finds no
        # slot then, so its text is not built (five reads) only to be refused.
        self.lane_full = lane_full
        # Pending items are read ahead a few blocks at a time (the claim is in memory, the mark one UPDATE).
        self.batch_size = min(max(settings["broadcast_batch_size"], window, CLAIMS_PER_READ), MAX_CLAIMS_PER_READ)
        self.max_errors = settings["broadcast_max_consecutive_errors"]
        self.progress_every = settings["broadcast_progress_every"]
        self.progress_min_seconds = settings["broadcast_progress_min_seconds"]
        self.urgent_edit_at = clock() + self.progress_min_seconds
        self.progress_at = clock()  # the next progress text is built no sooner (PROGRESS_FLOOR_SECONDS)
        self.lang = job.progress_lang or "fa"
        self.has_progress = bool(job.progress_message_id)
        self.paid_limit = job.paid_limit if job.paid else None
        self.charged = job.sent_count + job.unknown_count
        self.queue: deque[Claim] = deque()
        # A personal greeting needs each claimed recipient's first name and language code.
        self.personal = is_personal(job)
        # An action job (unsend, edit) reads each claimed item's copy.
        self.action = job.kind in ACTION_KINDS
        # A send with language variants reads each claimed item's variant (an action's read always does:
        # the pump refuses to give an edited copy another variant's text, so it must know each copy's).
        self.variants = bool(job.variants)
        self.last_id, self.exhausted = 0, False
        self.streak = breaker.Streak()
        self.since_progress = 0
        self.paused_reason: str | None = None
        # True once this pump's own pause UPDATE matched in the last committed step: it alone alerts.
        self.paused_here = False
        self.plans: list[Plan] = []
        self.db_error: SQLAlchemyError | None = None
        self._halted = False  # the current step's fence found the job stopped
        self.rescans_when_idle = 0

    def step(self, done: list, want: int, in_flight: int, stop: Stop | None = None) -> StepResult:
        """Record finished sends and mark up to `want` new items in flight, in one transaction.

        `stop` is the pump's stop so far; the result carries it, or the one this step calls for.
        """
        if done:
            plan, stop = self._plan(done, stop)
            self.plans.append(plan)
        if not self.plans and (want <= 0 or (not self.queue and self.exhausted)):
            return StepResult(stop=stop)
        for attempt in range(1, DEADLOCK_ATTEMPTS + 1):
            try:
                outcome = self._transaction(want, stop)
                break
            except SQLAlchemyError as exc:
                # Keep the plans: the next try writes them. A deadlock's victim was
                # rolled back whole, so it runs again now; any other error stops
                # dispatch, and the window in flight drains and is recorded once the
                # database answers.
                db.session.rollback()
                self.paused_here = False
                self.db_error = exc
                if is_deadlock(exc) and attempt < DEADLOCK_ATTEMPTS:
                    log.info("job %s: deadlock while recording (try %s); running the step again", self.job_id,
                             attempt)
                    self.sleep(DEADLOCK_BACKOFF_SECONDS * attempt)
                    continue
                log.warning("job %s: database error while recording (%s); outcomes kept for the next try",
                            self.job_id, type(exc).__name__)
                return StepResult(stop=stop or Stop.DB_ERROR, halt=self._halted)
            except Exception:
                db.session.rollback()
                raise
        if isinstance(outcome, StepResult):  # the lease was lost: nothing was written
            self._record_late_answers()
            return outcome
        batch, stop, halt = outcome
        self.db_error = None
        self.charged += len(batch)
        recorded = sum(plan.recorded for plan in self.plans)
        self.since_progress += recorded
        self.plans = []
        self._after_commit()
        return StepResult(tuple(batch), stop, recorded, halt)

    def _transaction(self, want: int, stop: Stop | None) -> StepResult | tuple[list[Claim], Stop | None, bool]:
        """One step's transaction: fence, write, claim; (claims, stop, halt), or a StepResult if the lease is lost."""
        self.paused_here, self._halted = False, False
        expected = self._expected_counts()
        fenced = self._fence(want > 0, expected)
        if fenced == Stop.LEASE_LOST:
            return StepResult(stop=fenced)
        if fenced is not None:
            stop, self._halted = stop or fenced, True
        counts: dict[ItemStatus, int] = defaultdict(int)
        for plan in self.plans:
            for status, n in self._write(plan).items():
                counts[status] += n
        # The fence moved the counters by what the plans should change; a replay (or an
        # item changed meanwhile) changes fewer rows, and the counters follow the rows.
        jobs_repo.add_counts(self.job_id, **{status: counts[status] - n for status, n in expected.items()})
        if stop:
            want = 0
        else:
            self._rescan([i for plan in self.plans for i in plan.back])
        want, capped = self._apply_paid_cap(want)
        stop = capped or stop
        batch = self._take(want)
        try:
            if batch and claims.mark_sending([c.item_id for c in batch]) != len(batch):
                raise RuntimeError("claimed items changed under a held lease")
            db.session.commit()
        except BaseException:
            self.queue.extendleft(reversed(batch))  # not claimed after all: the next try takes them again
            raise
        return batch, stop, self._halted

    def _record_late_answers(self) -> int:
        """The lease was lost: write the copies that answered onto items the new holder counted unknown; drop the rest.

        Only while those items may still land (landing.late_answers_since), so
        an unsend or edit accepted after that window misses none. An action's
        items went back to pending for the new holder: nothing to write.
        """
        sent = [pair for plan in self.plans for pair in plan.sent]
        parts = {item_id: ids for plan in self.plans for item_id, ids in plan.parts.items()}
        self.plans = []
        if self.action or not sent:
            return 0

        def write() -> int:
            now = self.lease.now()
            n = claims.set_sent(sent, now, parts, settled_since=landing.late_answers_since(now))
            if n:
                jobs_repo.add_counts(self.job_id, sent=n, unknown=-n)
            return n

        try:
            n = in_transaction(write)
        except SQLAlchemyError:
            log.warning("job %s: could not record %s late answers; they stay unknown", self.job_id, len(sent),
                        exc_info=True)
            return 0
        log.warning("job %s: lease lost; %s of %s copies that answered after all are recorded sent", self.job_id,
                    n, len(sent))
        return n

    def heartbeat(self) -> Stop | None:
        """Renew the lease in a transaction of its own (nothing else to write while sends wait); LEASE_LOST if lost."""
        lost = False
        try:
            lost = not self.lease.fence(require_running=False, counts={})
            if lost:
                log.warning("job %s: lease lost while waiting; this pump stops without writing", self.job_id)
            db.session.commit()
        except SQLAlchemyError:
            db.session.rollback()  # the next step or heartbeat tries again
            log.warning("job %s: lease renewal failed; will retry", self.job_id, exc_info=True)
        return Stop.LEASE_LOST if lost else None

    def settle(self, stop: Stop | None, attempts_delays: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0)) -> StepResult:
        """Write outcomes a database error left unwritten; raise its error if it persists."""
        recorded = 0
        for delay in attempts_delays:
            if not self.plans:
                break
            self.sleep(delay)
            result = self.step([], 0, 0, stop)
            stop, recorded = result.stop, recorded + result.recorded
        if self.plans and self.db_error is not None:
            raise self.db_error
        return StepResult(stop=stop, recorded=recorded)

    def _expected_counts(self) -> dict[ItemStatus, int]:
        """Return how the plans move the counters if every row they name changes (as it does but for a replay)."""
        counts: dict[ItemStatus, int] = defaultdict(int)
        for plan in self.plans:
            counts[SENT] += len(plan.sent)
            for (status, _), ids in plan.finals.items():
                counts[status] += len(ids)
            counts[ITEM_FAILED] -= len(plan.reopen)
        return {status: n for status, n in counts.items() if n}

    def _fence(self, dispatching: bool, counts: dict[ItemStatus, int]) -> Stop | None:
        """Prove the lease (and, when dispatching, that the job still runs), moving the counters by ``counts``.

        Return LEASE_LOST or the job's stop (None: it runs).
        """
        if dispatching and self.lease.fence(require_running=True, counts=counts):
            return None
        if not self.lease.fence(require_running=False, counts=counts):
            db.session.rollback()
            log.warning("job %s: lease lost; this pump stops without writing", self.job_id)
            return Stop.LEASE_LOST
        if dispatching:
            status = db.session.execute(select(BroadcastJob.status).where(BroadcastJob.id == self.job_id)).scalar()
            return Stop.from_job_status(status)
        return None

    def _plan(self, done: list, stop: Stop | None) -> tuple[Plan, Stop | None]:
        """Judge finished sends once: item statuses, blocked users, the breaker, retry_after; return the new stop."""
        plan = Plan()
        for item_id, user_id, outcome in done:
            kind = breaker.kind_of(outcome, stop)
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
        self.streak, decision = breaker.judge(self.streak, [(i, o) for i, _, o in done], stop=stop,
                                              paused=bool(self.paused_reason), max_errors=self.max_errors)
        if decision.pause == Stop.UNAUTHORIZED:
            self.paused_reason = t("reason_unauthorized", self.lang)
        if decision.trip is not None:
            self._trip(plan, decision.trip, decision.pause == Stop.BREAKER)
        plan.recorded = len(done) - len(plan.back)
        if decision.retry_after:
            plan.not_before = self.lease.now() + timedelta(seconds=decision.retry_after)
        return plan, decision.stop

    def _write(self, plan: Plan) -> dict[ItemStatus, int]:
        """Write one plan's items; return how its rows really changed each counter (a replay changes none)."""
        now = self.lease.now()
        counts: dict[ItemStatus, int] = defaultdict(int)
        if self.action:  # the item keeps the id of the copy it acted on
            counts[SENT] += claims.set_done([item_id for item_id, _ in plan.sent], now)
        else:
            counts[SENT] += claims.set_sent(plan.sent, now, plan.parts)
        for (status, error), ids in plan.finals.items():
            counts[status] += claims.set_final(ids, status, now, error)
        claims.set_final(plan.back, PENDING, now)
        reopened = claims.reopen_failed(plan.reopen)
        if reopened:
            counts[ITEM_FAILED] -= reopened
        claims.block_users(plan.blocked, now)
        if plan.not_before is not None:
            jobs_repo.set_not_before(self.job_id, self.lease.token, plan.not_before)
        if self.paused_reason:
            self._pause()
        return counts

    def _pause(self) -> None:
        """Pause the job with the audit row in the same transaction; only a matched UPDATE alerts later."""
        if jobs_repo.pause(self.job_id, self.paused_reason):
            audit.record(audit.ACTOR_SYSTEM, audit.PAUSED, self.job_id, self.paused_reason)
            self.paused_here = True

    def _trip(self, plan: Plan, streak: breaker.Streak, pause: bool) -> None:
        """Apply the breaker's opening: the streak's failed items go back to pending and the job pauses."""
        streak_ids = set(streak.failed)
        for key in [k for k in plan.finals if k[0] == ITEM_FAILED]:
            here = [i for i in plan.finals[key] if i in streak_ids]
            plan.finals[key] = [i for i in plan.finals[key] if i not in streak_ids]
            plan.back.extend(here)
            streak_ids -= set(here)
        # Failed items of the streak already written by earlier steps.
        plan.reopen = list(streak_ids)
        if pause:
            self.paused_reason = t("reason_breaker", self.lang, n=streak.errors, error=streak.last_error[:120])
        log.warning("job %s: %s non-recipient errors in a row (%s); pausing", self.job_id, streak.errors,
                    streak.last_error)

    def _apply_paid_cap(self, want: int) -> tuple[int, Stop | None]:
        """Never dispatch past the job's cap on paid messages; pause when it is reached (PAID_CAP)."""
        if self.paid_limit is None or want <= 0:
            return want, None
        room = self.paid_limit - self.charged
        if room > 0:
            return min(want, room), None
        if not self._take_peek():
            return 0, None
        self.paused_reason = t("reason_paid_cap", self.lang, cap=self.paid_limit)
        self._pause()
        return 0, Stop.PAID_CAP

    def _take_peek(self) -> bool:
        """Tell whether any pending item is left to send."""
        self._fill(1)
        return bool(self.queue)

    def _rescan(self, back: list[int]) -> None:
        """Read again from the first item that went back to pending (a send held back by a 429 elsewhere)."""
        if back:
            self._rewind(min(self.last_id, min(back) - 1))

    def _rewind(self, last_id: int) -> None:
        """Drop the queue and read on from just after last_id."""
        self.queue.clear()
        self.last_id, self.exhausted = last_id, False

    def _fill(self, need: int) -> None:
        """Read the next pending items (in id order) until the queue holds `need` or none are left."""
        while len(self.queue) < need and not self.exhausted:
            rows = self._next_pending()
            if rows:
                self.last_id = rows[-1].item_id
                self.queue.extend(rows)
            if len(rows) < self.batch_size:
                self.exhausted = True

    def _next_pending(self) -> list[Claim]:
        """Read the next batch of pending items, with each one's copy (actions), name (greetings) and variant."""
        if self.action:
            rows = claims.next_pending_targets(self.job_id, self.last_id, self.batch_size)
            if self.personal:
                return [Claim(i, u, name, code, message_id, parts, variant or None)
                        for i, u, message_id, parts, name, code, variant in rows]
            return [Claim(i, u, message_id=message_id, part_ids=parts, variant=variant or None)
                    for i, u, message_id, parts, _, _, variant in rows]
        if self.personal:
            return [Claim(i, u, name, code, variant=variant or None)
                    for i, u, name, code, variant in claims.next_pending_named(self.job_id, self.last_id,
                                                                              self.batch_size)]
        if self.variants:
            return [Claim(i, u, variant=variant)
                    for i, u, variant in claims.next_pending_variants(self.job_id, self.last_id, self.batch_size)]
        return [Claim(i, u) for i, u in claims.next_pending(self.job_id, self.last_id, self.batch_size)]

    def _take(self, want: int) -> list[Claim]:
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
                self.notifier.paused(self.job_id, self.paused_reason)
                self.notifier.flush()
            if self.has_progress and self.since_progress >= self.progress_every:
                self.since_progress = 0
                if self.clock() >= self.progress_at and (self._urgent_due() or not self.lane_full()):
                    self._queue_progress()
                # Tried again at every tick: a low-priority edit goes once a slot is free at one of them.
                self.notifier.flush()
        except Exception:
            # The batch just marked 'sending' must still go out: a failed
            # progress read or edit is never worth turning it into 'unknown'.
            db.session.rollback()
            log.warning("job %s: progress update skipped", self.job_id, exc_info=True)

    def _queue_progress(self) -> None:
        """Build the progress text (at most every PROGRESS_FLOOR_SECONDS) and queue its edit.

        Progress edits give way to replies and sends (they take a bot-wide
        slot only when one is free), except one every
        broadcast_progress_min_seconds, which waits its turn.
        """
        self.progress_at = self.clock() + PROGRESS_FLOOR_SECONDS
        urgent = self._urgent_due()
        if urgent:
            self.urgent_edit_at = self.clock() + self.progress_min_seconds
        self.notifier.progress(self.job_id, self.lang, priority=None if urgent else LOW)

    def _urgent_due(self) -> bool:
        """True once broadcast_progress_min_seconds passed since the last edit that waits its turn."""
        return self.clock() >= self.urgent_edit_at

    @property
    def may_have_more(self) -> bool:
        """True unless every pending item seen so far has been dispatched and none are left."""
        return bool(self.queue) or not self.exhausted

    @property
    def drained(self) -> bool:
        """True when every pending item seen has been dispatched and none are left."""
        return self.exhausted and not self.queue

    def idle_reason(self) -> Stop | None:
        """Nothing in flight and nothing to claim: complete the job if every item is final.

        None: a pending item turned up on a fresh read from the job's start, so the run goes on.
        """
        done = in_transaction(lambda: jobs_repo.complete_if_done(self.job_id, self.lease.token, self.lease.now()))
        if done:
            log.info("job %s completed", self.job_id)
            # complete_if_done matched for this pump alone, so the summary goes out once.
            self._best_effort(lambda: self.notifier.finished(self.job_id))
            return Stop.DONE
        if self._pending_behind_the_cursor():
            return None
        return Stop.INCOMPLETE

    def _pending_behind_the_cursor(self) -> bool:
        """Read the pending items again from the job's start; True if one is there (a few times per run at most).

        The cursor reads forward from the last claimed id and rewinds when a send
        comes back; a pending item it passed by any other way would otherwise wait
        for the next cron call while this run still had time to send it.
        """
        if self.rescans_when_idle >= IDLE_RESCANS:
            return False
        self.rescans_when_idle += 1
        self._rewind(0)
        self._fill(1)
        db.session.commit()
        if self.queue:
            log.warning("job %s: pending item %s found behind the claim cursor; sending it in this run",
                        self.job_id, self.queue[0].item_id)
        return bool(self.queue)

    def finish(self, stop: Stop | None) -> None:
        """Leave the progress message showing where the job stands (the pump stopped for `stop`)."""
        if self.has_progress and stop != Stop.DONE:
            self._best_effort(lambda: self.notifier.progress(self.job_id, self.lang))

    def _best_effort(self, notify) -> None:
        """Run a progress/summary update; its failure never changes what was sent or recorded."""
        try:
            notify()
        except Exception:
            db.session.rollback()
            log.warning("job %s: progress update skipped", self.job_id, exc_info=True)
