"""The pump's database side: claim and mark a block, record outcomes, apply the breaker, completion.

Each step() is one short transaction: the users found blocked (a user's row before the job's:
repository/presses.py), then the lease fence (which moves the job's counters too), so a pump that
lost its lease writes nothing; it marks 'sending' one block of items once the previous block is
handed over, so at most a block and the window are in flight (the crash bound on 'unknown',
slots.claimed_at_most). The claim cursor is claims.py's, the plans' writes plans.py's, the
progress edits progress_ticks.py's.

Outcomes are judged once, in memory (a Plan), then written. When the
database fails, the plans are kept and written by the next step, so an
outage of a few seconds loses no outcome; only a pump that dies (or loses
its lease) before writing them leaves its items 'sending', to be counted
'unknown' by the next lease holder.

The Recorder never sees the pump: each call returns what the pump must know
(a StepResult, a Stop), and the pump decides its own stop from it."""
from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import ACTION_KINDS, BroadcastJob, ItemStatus
from app.repository import broadcast_claims as items
from app.repository import broadcast_jobs as jobs_repo
from app.repository.deadlocks import in_transaction, is_deadlock
from app.services import audit
from app.services.broadcast.reporting.notifier import Notifier
from app.services.broadcast.reporting.progress_ticks import ProgressTicks
from app.services.broadcast.sending import breaker, plans
from app.services.broadcast.sending.claims import Claim, ClaimCursor
from app.services.broadcast.sending.lease import Lease
from app.services.broadcast.sending.plans import Plan
from app.services.broadcast.sending.rules import SendingRules
from app.services.broadcast.sending.stops import Stop
from app.texts import t

__all__ = ["Claim", "Recorder", "StepResult"]

log = logging.getLogger(__name__)

# A step MySQL rolled back as a deadlock's victim runs again at once, up to this many tries in all,
# the n-th waiting n times the backoff: the other transaction is short and has commit to do.
DEADLOCK_ATTEMPTS = 3
DEADLOCK_BACKOFF_SECONDS = 0.02


@dataclass(frozen=True)
class StepResult:
    """What one step did: the items it marked in flight, the pump's stop after it, the outcomes it wrote."""

    claimed: tuple[Claim, ...] = ()
    stop: Stop | None = None  # why dispatch must stop (None: go on)
    recorded: int = 0
    halt: bool = False  # the job no longer runs: no send of this pump may start any more


class Recorder:
    """Owns the claimed queue and the loop's writes to the job and its items.

    The lease's take and release are the Lease's; the bot-wide slot bookings
    and 429 holds are the budget's, written by the send threads too.
    """

    def __init__(self, job: BroadcastJob, window: int, *, lease: Lease, notifier: Notifier, settings: dict,
                 clock, sleep, lane_full=lambda: False):
        self.job_id, self.window = job.id, window
        self.lease, self.notifier, self.clock, self.sleep = lease, notifier, clock, sleep
        self.cursor = ClaimCursor(job, max(settings["broadcast_batch_size"], window))
        # Whether this pump books the bot-wide lane full decides if a giving-way progress edit is built.
        self.ticks = ProgressTicks(job, notifier, settings, clock, lane_full)
        self.max_errors = settings["broadcast_max_consecutive_errors"]
        self.lang = job.progress_lang or "fa"
        self.rules = SendingRules(job, settings, self.lang)  # quiet hours and the frequency cap, per block
        self.paid_limit = job.paid_limit if job.paid else None
        self.charged = job.sent_count + job.unknown_count
        self.action = job.kind in ACTION_KINDS
        self.streak = breaker.Streak()
        self.paused_reason: str | None = None
        # True once this pump's own pause UPDATE matched in the last committed step: it alone alerts.
        self.paused_here = False
        self.plans: list[Plan] = []
        self.db_error: SQLAlchemyError | None = None
        self._halted = False  # the current step's fence found the job stopped

    def step(self, done: list, want: int, in_flight: int, stop: Stop | None = None) -> StepResult:
        """Record finished sends and mark up to `want` new items in flight, in one transaction.

        `stop` is the pump's stop so far; the result carries it, or the one this step calls for.
        """
        if done:
            plan, stop = self._plan(done, stop)
            self.plans.append(plan)
        if not self.plans and (want <= 0 or self.cursor.drained):
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
        self.plans = []
        paused, self.paused_here = self.paused_here, False
        self.ticks.after_commit(recorded, (self.paused_reason or self.rules.reason) if paused else None)
        return StepResult(tuple(batch), stop, recorded, halt)

    def _transaction(self, want: int, stop: Stop | None) -> StepResult | tuple[list[Claim], Stop | None, bool]:
        """One step's transaction: fence, write, claim; (claims, stop, halt), or a StepResult if the lease is lost."""
        self.paused_here, self._halted = False, False
        plans.block_users(self.plans, self.lease.now())  # users before the job's row (repository/presses.py)
        expected = plans.expected_counts(self.plans)
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
            self.cursor.rescan([i for plan in self.plans for i in plan.back])
        want, capped = self._apply_paid_cap(want)
        if want and self.rules.quiet_pause(self.lease.now()):
            want, capped, self.paused_here = 0, Stop.QUIET_HOURS, True
        stop = capped or stop
        taken = self.cursor.take(want)
        try:
            batch = self.rules.skip_capped(taken, self.lease.now())
            if batch and items.mark_sending([c.item_id for c in batch]) != len(batch):
                raise RuntimeError("claimed items changed under a held lease")
            db.session.commit()
        except BaseException:
            self.cursor.put_back(taken)  # not claimed after all: the next try takes them again
            raise
        return batch, stop, self._halted

    def _record_late_answers(self) -> int:
        """The lease was lost: write the answers heard onto items the new holder counted unknown (plans.py)."""
        plans_now, self.plans = self.plans, []
        if self.action:  # a repeatable action's items went back to pending; a pin's stay unknown (no id to write)
            return 0
        return plans.record_late_answers(self.job_id, plans_now, self.lease.now)

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
        plan, uncharged = plans.sort_outcomes(done, stop)
        self.charged -= uncharged
        self.streak, decision = breaker.judge(self.streak, [(i, o) for i, _, o in done], stop=stop,
                                              paused=bool(self.paused_reason), max_errors=self.max_errors)
        if decision.pause in breaker.PAUSE_TEXTS:
            self.paused_reason = t(breaker.PAUSE_TEXTS[decision.pause], self.lang)
        if decision.trip is not None:
            streak = decision.trip
            plans.trip(plan, streak)
            if decision.pause == Stop.BREAKER:
                self.paused_reason = t("reason_breaker", self.lang, n=streak.errors, error=streak.last_error[:120])
            log.warning("job %s: %s non-recipient errors in a row (%s); pausing", self.job_id, streak.errors,
                        streak.last_error)
        plan.recorded = len(done) - len(plan.back)
        if decision.retry_after:
            plan.not_before = self.lease.now() + timedelta(seconds=decision.retry_after)
            plan.held_seconds = decision.retry_after
        return plan, decision.stop

    def _write(self, plan: Plan) -> dict[ItemStatus, int]:
        """Write one plan; return how its rows really changed each counter (a replay changes none)."""
        counts = plans.write_items(plan, self.lease.now(), action=self.action)
        if plan.not_before is not None:
            jobs_repo.set_not_before(self.job_id, self.lease.token, plan.not_before)
            # One row per block that met a 429 (never per copy): the results picture marks the hold.
            audit.record(audit.ACTOR_SYSTEM, audit.HELD, self.job_id, f"429: {plan.held_seconds:g} s")
        if self.paused_reason:
            self._pause()
        return counts

    def _pause(self) -> None:
        """Pause the job with the audit row in the same transaction; only a matched UPDATE alerts later."""
        if jobs_repo.pause(self.job_id, self.paused_reason):
            audit.record(audit.ACTOR_SYSTEM, audit.PAUSED, self.job_id, self.paused_reason)
            self.paused_here = True

    def _apply_paid_cap(self, want: int) -> tuple[int, Stop | None]:
        """Never dispatch past the job's cap on paid messages; pause when it is reached (PAID_CAP)."""
        if self.paid_limit is None or want <= 0:
            return want, None
        room = self.paid_limit - self.charged
        if room > 0:
            return min(want, room), None
        if not self.cursor.any_left():
            return 0, None
        self.paused_reason = t("reason_paid_cap", self.lang, cap=self.paid_limit)
        self._pause()
        return 0, Stop.PAID_CAP

    @property
    def may_have_more(self) -> bool:
        """True unless every pending item seen so far has been dispatched and none are left."""
        return self.cursor.may_have_more

    @property
    def drained(self) -> bool:
        """True when every pending item seen has been dispatched and none are left."""
        return self.cursor.drained

    def idle_reason(self) -> Stop | None:
        """Nothing in flight and nothing to claim: complete the job if every item is final.

        None: a pending item turned up on a fresh read from the job's start, so the run goes on.
        """
        done = in_transaction(lambda: jobs_repo.complete_if_done(self.job_id, self.lease.token, self.lease.now()))
        if done:
            log.info("job %s completed", self.job_id)
            # complete_if_done matched for this pump alone, so the summary goes out once.
            self.ticks.best_effort(lambda: self.notifier.finished(self.job_id))
            return Stop.DONE
        if self.cursor.pending_behind():
            return None
        return Stop.INCOMPLETE

    def finish(self, stop: Stop | None) -> None:
        """Leave the progress message showing where the job stands (the pump stopped for `stop`)."""
        self.ticks.finish(stop == Stop.DONE)
