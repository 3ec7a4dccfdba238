"""The Pump: one job's dispatch loop under its lease: sends and actions at its Booker's slots, each recorded.

The arrows point one way: the pump calls the Recorder and acts on what each
call returns (claimed items, a stop, a halt); the Recorder never sees the pump.
"""
from __future__ import annotations

import logging
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import RUNNING, BroadcastJob
from app.repository.budget.engine import budget_engine
from app.services.broadcast.jobs import estimate
from app.services.broadcast.reporting.notifier import Notifier
from app.services.broadcast.sending import breaker
from app.services.broadcast.sending.claims import Claim
from app.services.broadcast.sending.copies import Copies
from app.services.broadcast.sending.follow_up import deliver, thread_seconds
from app.services.broadcast.sending.lease import Lease
from app.services.broadcast.sending.outcomes import (
    HELD_BACK,
    Outcome,
    classify,
    classify_action,
    personal_failure,
)
from app.services.broadcast.sending.recorder import Recorder, StepResult
from app.services.broadcast.sending.slots import Booker, Slot
from app.services.broadcast.sending.stops import Stop
from app.telegram.in_flight import IN_FLIGHT

log = logging.getLogger(__name__)
# A send is handed to its thread this long before its slot (the thread sleeps the rest):
# handed over at the slot itself it would start late.
HAND_OVER_AHEAD = 0.01
# Telegram's answer when editMessageText meets a media copy: its caption is edited instead.
NO_TEXT = "there is no text in the message to edit"
# Stops after which the sends already claimed and booked still go: the cap counted them, the run's end is after them.
SENDS_GO_ON = frozenset({None, Stop.PAID_CAP, Stop.BUDGET})
# A scheduled send: its claim, its bot-wide slot, and whether its block is the bot's only sender (Block.quiet).
Scheduled = tuple[Claim, Slot, bool]


class Pump:
    """State of one pump call: this thread books blocks, claims and records (through the Recorder); the pool sends.

    Block by block: one step writes the outcomes so far and claims the next
    block's items, one booking takes their bot-wide slots, one more their
    chats; each send is handed to a pool thread just before its slot. A send
    thread reaches the database only when its block was not the bot's only
    sender (a hold re-read before its request) and, before retrying after a
    429, to read the job's status on its own connection (may_retry).
    """

    def __init__(self, job_id: int, max_seconds: float, settings: dict, client, outbox, clock, sleep):
        self.job_id, self.settings, self.client, self.outbox = job_id, settings, client, outbox
        self.clock, self.sleep = clock, sleep
        self.started = clock()
        self.deadline = self.started + max_seconds
        self.lease = Lease(job_id, clock, sleep)
        self.stop: Stop | None = None
        # may_retry's reads go through the budget's engine: a send thread never
        # queues for the app's one connection, which this pump's thread may hold
        # in a transaction while it waits for that very send.
        self.engine = budget_engine(db.engine)
        self._halted = threading.Event()
        self.processed = 0  # outcomes this pump's Recorder wrote
        self.personal = False  # each copy greets its recipient by name (set by run)
        self.booker: Booker | None = None  # set by run, once the job's parts are known
        self.outbox_worker = False
        self.action = False  # an action job: unsend, edit, pin, unpin (set by run)
        # The answers' own verdict, judged in memory as they come: a stop the next step will write.
        self.watch = breaker.AnswerWatch(settings["broadcast_max_consecutive_errors"], SENDS_GO_ON)

    def halt(self) -> None:
        """The job stopped running (cancel/pause): no send of this pump starts any more."""
        self._halted.set()

    def may_retry(self) -> bool:
        """Tell a send thread whether it may try again after waiting (a 429's retry_after).

        Asked in autocommit, so a cancel or pause committed while the send
        waited stops it: it goes back to pending, not sent.
        """
        if self._halted.is_set():
            return False
        try:
            with self.engine.connect() as conn:
                status = conn.execute(select(BroadcastJob.status).where(BroadcastJob.id == self.job_id)).scalar()
        except SQLAlchemyError:
            return False  # cannot prove the job still runs: do not send
        if status != RUNNING:
            self.halt()
            return False
        return True

    def send(self, method: str, params: dict, user_id: int, slot: Slot, quiet: bool):
        """Send one recipient's copy in a worker thread at its bot-wide slot (booked with its chat by the block)."""
        try:
            if not self.booker.clear(slot, quiet):
                return HELD_BACK
            if not self.lease.fresh():
                # This process stalled past its lease: another pump or cron may already count this
                # item unknown and an unsend read the ledger, so a copy sent now could never be reached.
                log.warning("job %s: lease too old to send to %s (this process stalled)", self.job_id, user_id)
                return HELD_BACK
            chat_taken = self.booker.chats is not None
            if self.action:
                return self.act(method, params, user_id, chat_taken)
            return deliver(self.client, method, params, user_id, deadline=self.deadline, retry_unknown=False,
                           broadcast=True, slot_taken=True, chat_taken=chat_taken, may_retry=self.may_retry,
                           read_timeout=self.answer_wait())
        except Exception as exc:  # classify() maps every failure, bugs included
            if not hasattr(exc, "description"):
                log.exception("unexpected error sending to %s", user_id)
            outcome = classify_action(exc, self.copies.repeatable) if self.action else classify(exc)
            # A personal copy Telegram finds too long is that recipient's name, not the bot's fault.
            return personal_failure(outcome) if self.personal else outcome

    def answer_wait(self) -> float:
        """Return a copy's (or a delete's) wait for its answer: the send timeout, cut to the run's end, >= a reply's.

        A copy given up on is 'unknown' with no message id: no unsend or edit can reach it.
        """
        reply_wait = self.settings["telegram_read_timeout"]
        left = self.deadline - self.clock()
        return max(reply_wait, min(self.settings["telegram_send_read_timeout"], left + reply_wait))

    def act(self, method: str, params: dict, user_id: int, chat_taken: bool):
        """Delete, edit, pin or unpin one copy; an unknown outcome is retried unless it is a pin's."""
        call = {"deadline": self.deadline, "retry_unknown": self.copies.repeatable, "broadcast": True,
                "may_retry": self.may_retry, "read_timeout": self.answer_wait()}
        try:
            self.client.call(method, {"chat_id": user_id, **params}, slot_taken=True, chat_taken=chat_taken, **call)
        except Exception as exc:
            if method != "editMessageText" or NO_TEXT not in (getattr(exc, "description", "") or "").lower():
                raise
            # A copy of a media message: its caption is the text to edit (this takes a slot of its own).
            caption = {k: v for k, v in params.items() if k not in ("text", "link_preview_options")}
            self.client.call("editMessageCaption", {"chat_id": user_id, **caption, "caption": params["text"]}, **call)
        return classify_action(None)

    def make_booker(self, parts: int, window: int, paid: bool = False) -> Booker:
        """Return the Booker of this pump's sends: its client's pacers, its deadline, its lease kept while waiting."""
        client = self.client
        chats = client.chat_pacer if client.pace_recipients else None
        connect, follow = self.settings["telegram_connect_timeout"], self.copies.follow
        return Booker(parts, limiter=client.rate_limiter, budget=client.broadcast_budget, chats=chats, window=window,
                      min_sends=estimate.block_sends(self.settings, paid),
                      busy_for=lambda: self.answer_wait() + connect,
                      call_seconds=lambda: thread_seconds(client.typical_call_seconds, follow, chats is not None),
                      clock=self.clock, sleep=self.sleep,
                      deadline=self.deadline, heartbeat=self.lease.heartbeat, keep=self.lease.keep,
                      pause=self.lease.pause_for, stopped=lambda: self.stop)

    def heed(self, result: StepResult) -> tuple[Claim, ...]:
        """Take a Recorder step's verdict: its stop becomes the pump's, a halt stops every send; return its claims."""
        self.stop = result.stop
        self.processed += result.recorded
        if result.halt:
            self.halt()
        return result.claimed

    def can_dispatch(self, recorder: Recorder) -> bool:
        """True while this pump may still start sends."""
        return self.stop is None and not self.watch.warned and self.clock() < self.deadline and recorder.may_have_more

    def run(self) -> None:
        """Send pending items block by block until done, stopped or out of time."""
        job = db.session.get(BroadcastJob, self.job_id)
        self.copies = Copies(job)
        self.action, self.personal = self.copies.action, self.copies.personal
        window = self.settings["broadcast_paid_concurrency" if job.paid else "broadcast_concurrency"]
        self.booker = self.make_booker(self.copies.parts, window, job.paid)
        notifier = Notifier(self.outbox, self.clock, self.deadline, worker=self.outbox_worker)
        recorder = Recorder(job, window, lease=self.lease, notifier=notifier, settings=self.settings,
                            clock=self.clock, sleep=self.sleep, lane_full=self.booker.fills_lane)

        def renew() -> None:
            self.stop = recorder.heartbeat() or self.stop

        self.lease.renew = renew
        db.session.commit()
        if job.not_before and not self.lease.wait_until(job.not_before, self.deadline):
            self.stop = Stop.NOT_BEFORE  # a 429's retry_after outlasts this run
            return
        try:
            with ThreadPoolExecutor(max_workers=window, thread_name_prefix=f"pump{self.job_id}") as pool:
                # Start every send thread now (each waits until all are up): a thread
                # started at its first slot would send late, bunched with the next.
                started = threading.Barrier(window + 1)
                for _ in range(window):
                    pool.submit(started.wait, 5)
                started.wait(5)
                # Connections opened before the first slot (one opened at its slot would leave late),
                # on the send threads themselves: no second pool of threads beside them.
                self.client.warm(window, pool)
                self.dispatch(pool, recorder, window)
        finally:
            self.release_lane()
        self.heed(recorder.settle(self.stop))
        recorder.finish(self.stop)

    def release_lane(self) -> None:
        """Tell the bot-wide lane this pump's sends are answered: the next pump need not wait out their window."""
        if self.booker is not None:
            self.booker.release(answered=IN_FLIGHT.count == 0)

    def dispatch(self, pool: ThreadPoolExecutor, recorder: Recorder, window: int) -> None:
        """Book, claim and hand over blocks of sends until none are left or the pump stops."""
        in_flight: dict[Future, tuple[int, int]] = {}
        queue: deque[Scheduled] = deque()
        done: list = []
        while True:
            answered = finished(in_flight)
            done += answered
            if queue and (self.watch.see(answered) or self.stop not in SENDS_GO_ON or self._halted.is_set()):
                done += [(claim.item_id, claim.user_id, HELD_BACK) for claim, _, _ in queue]
                queue.clear()
            if queue:
                self.hand_over(pool, queue, in_flight, window)
                continue
            if self.can_dispatch(recorder):
                # The block's last send is handed over: its answers so far are written with the next claim.
                done = self.next_block(recorder, done, queue, len(in_flight))
                continue
            if not in_flight and not self.can_dispatch(recorder):
                if done:
                    self.heed(recorder.step(done, 0, 0, self.stop))
                    done = []
                    continue  # an item held back is pending again: the next block may send it
                if self.stop is None and recorder.drained:
                    self.stop = recorder.idle_reason()
                    if self.stop is None:
                        continue  # a pending item was found behind the cursor: send it now
                self.stop = self.stop or Stop.BUDGET
                return
            self.lease.wait_some(list(in_flight), max(self.deadline - self.clock(), 0) + 60)

    def next_block(self, recorder: Recorder, done: list, queue: deque[Scheduled], in_flight: int) -> list:
        """Write the outcomes so far and claim the next block, book its slots and chats; return what is left to write.

        Claimed first, then booked: the step's transaction never stands
        between a slot and its send. A booking refused (the run's end, a stop)
        or a chat a reply holds sends that item back to pending with the next step.
        """
        claims = self.heed(recorder.step(done, self.booker.block_sends(), in_flight, self.stop))
        if not claims:
            return []
        block = self.booker.book(len(claims))
        if isinstance(block, Stop):
            self.stop = self.stop or block
            return [(claim.item_id, claim.user_id, HELD_BACK) for claim in claims]
        held = [(claim.item_id, claim.user_id, HELD_BACK) for claim in claims[len(block.sends):]]
        claims = claims[:len(block.sends)]
        for claim, slot, booked in zip(claims, block.sends, self.booker.book_chats(block, [c.user_id for c in claims]),
                                       strict=True):
            if booked:
                queue.append((claim, slot, block.quiet))
            else:
                held.append((claim.item_id, claim.user_id, HELD_BACK))
        return held

    def hand_over(self, pool: ThreadPoolExecutor, queue: deque[Scheduled], in_flight: dict, window: int) -> None:
        """Hand the next send to a free thread just before its slot; else wait for its time or a thread to free."""
        claim, slot, quiet = queue[0]
        now = self.clock()
        hand_at = slot[0] - HAND_OVER_AHEAD
        if hand_at > now:
            self.lease.wait_or_sleep(list(in_flight), hand_at - now)
        elif len(in_flight) >= window:
            # Every thread busy: wait for one; a send that starts late is held back by clear().
            self.lease.wait_or_sleep(list(in_flight), max(self.deadline - now, 0) + 60)
        else:
            queue.popleft()
            in_flight[pool.submit(self.call_for(claim, slot, quiet))] = (claim.item_id, claim.user_id)

    def call_for(self, claim: Claim, slot: Slot, quiet: bool):
        """Return the work of one claimed item's send: its own call at its slot, or its refusal when none may go."""
        call = self.copies.call_for(claim)
        if isinstance(call, Outcome):
            return lambda: call
        method, params = call
        return partial(self.send, method, params, claim.user_id, slot, quiet)


def finished(in_flight: dict[Future, tuple[int, int]]) -> list:
    """Take the finished sends out of in_flight; return their (item id, user id, outcome)."""
    done = [f for f in in_flight if f.done()]
    return [(*in_flight.pop(f), f.result()) for f in done]
