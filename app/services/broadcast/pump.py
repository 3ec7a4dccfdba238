"""The Pump: one job's dispatch loop under its lease: rate slots, sends and actions, each recorded by the Recorder.

The arrows point one way: the pump calls the Recorder and acts on what each
call returns (claimed items, a stop, a halt); the Recorder never sees the pump.
"""
from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import ACTION_KINDS, RUNNING, BroadcastJob
from app.services.broadcast import greeting, text_rules
from app.services.broadcast.content import action_params, message_params, target_params
from app.services.broadcast.lease import Lease
from app.services.broadcast.notifier import Notifier
from app.services.broadcast.outcomes import (
    HELD_BACK,
    classify,
    classify_action,
    delivered,
    personal_failure,
    too_long_for,
)
from app.services.broadcast.recorder import Claim, Recorder, StepResult
from app.services.broadcast.stops import Stop
from app.services.telegram_budget import send_slots, span_for
from app.texts import lang_of

log = logging.getLogger(__name__)
# With a wide window (paid broadcasts), wait a moment after a completion so
# one commit records several; a narrow window refills at once, because at
# 4 sends in flight and 150 ms latency every millisecond of refill delay
# costs rate.
GATHER_SECONDS = 0.005
GATHER_MIN_WINDOW = 16
DUE_GRACE_SECONDS = 0.001
# When the next slot is this far off, record sends that finish meanwhile
# (an extra short transaction); nearer slots record them with the next mark,
# so at full rate each item still costs one transaction.
RECORD_WHILE_WAITING = 0.05
# Bot-wide slots are booked only this far ahead: an item is marked 'sending'
# just before its request, and a /start waits behind at most this much of a
# broadcast's bookings.
SLOT_HORIZON = 0.5
# Telegram's answer when editMessageText meets a media copy: its caption is edited instead.
NO_TEXT = "there is no text in the message to edit"


class Pump:
    """State of one pump call: this thread claims and records (through the Recorder), the pool's threads send.

    A send thread still reaches the database itself: it books its bot-wide
    slot (again, when it woke late) and, before retrying after a 429, reads
    the job's status on its own connection (may_retry).
    """

    def __init__(self, job_id: int, max_seconds: float, settings: dict, client, outbox, clock, sleep):
        self.job_id, self.settings, self.client, self.outbox = job_id, settings, client, outbox
        self.clock, self.sleep = clock, sleep
        self.started = clock()
        self.deadline = self.started + max_seconds
        self.lease = Lease(job_id, clock, sleep)
        self.stop: Stop | None = None
        self.engine = db.engine
        self._halted = threading.Event()
        self.processed = 0  # outcomes this pump's Recorder wrote
        self.personal = False  # each copy greets its recipient by name (set by run)
        self.slots: list[tuple[float, float]] = []
        # Messages one recipient's send puts out (an album's parts): each takes a rate slot.
        self.cost = self.span = 1
        self.outbox_worker = False
        self.action = False  # an unsend or edit job (set by run)

    def halt(self) -> None:
        """The job stopped running (cancel/pause): no send of this pump starts any more."""
        self._halted.set()

    def may_retry(self) -> bool:
        """Tell a send thread whether it may try again after waiting (a 429's retry_after).

        Asked on the send's own connection, so a cancel or pause committed
        while the send waited stops it: it goes back to pending, not sent.
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

    def wait_not_before(self, job: BroadcastJob) -> bool:
        """Honour a 429's not_before: sleep if it ends within the budget, else stop."""
        if not job.not_before:
            return True
        wait_s = (job.not_before - self.lease.now()).total_seconds()
        if wait_s <= 0:
            return True
        if self.clock() + wait_s >= self.deadline - 0.5:
            self.stop = Stop.NOT_BEFORE
            return False
        self.lease.pause_for(wait_s)
        return True

    def send(self, method: str, params: dict, user_id: int, slot: tuple[float, float] | None = None):
        """Send one recipient's copy in a worker thread at its bot-wide slot (already booked)."""
        try:
            chat_taken = slot is not None and self.client.pace_recipients
            rebooked = False
            if slot is not None:
                at, booked_at = slot
                if chat_taken:
                    # The recipient's chat is booked for the slot's time before the
                    # sleep (the same sleep waits for both): after waking, only the
                    # hold check and the lateness check stand before the request.
                    self.client.pace_chat(user_id, self.deadline, not_before=at)
                if (delay := at - self.clock()) > 0:
                    self.sleep(delay)
                budget = self.client.broadcast_budget
                if not budget.clear_at(at, booked_at, late_ok=True):
                    return HELD_BACK  # a 429 recorded after we booked covers this slot: not sent
                if budget.is_late(at):
                    # This thread woke too late: sends bunched together could break
                    # the cap, so it takes a fresh slot (an album: a fresh span) of
                    # its own or, with none in time, holds back.
                    if self.cost == 1:
                        at = budget.acquire_slot(self.deadline)
                        if at is None:
                            return HELD_BACK
                    else:
                        booked_at = self.clock()
                        span = budget.acquire_many(self.span, self.deadline, max_wait=SLOT_HORIZON)
                        if not span:
                            return HELD_BACK
                        at = span[self.cost - 1]
                        if (delay := at - self.clock()) > 0:
                            self.sleep(delay)
                        if not budget.clear_at(at, booked_at, late_ok=True):
                            return HELD_BACK
                    # The chat was booked for the missed slot: its next message (the
                    # admin's summary) must wait a whole interval after this one. Moved
                    # once the answer is in: no statement stands between a slot and its request.
                    rebooked = chat_taken
            if self.action:
                return self.act(method, params, user_id, chat_taken)
            result = self.client.call(method, {"chat_id": user_id, **params}, deadline=self.deadline,
                                      retry_unknown=False, broadcast=True, slot_taken=True, chat_taken=chat_taken,
                                      may_retry=self.may_retry)
            if rebooked:
                # It arrived by its answer, however late this thread ran: the interval counts from there.
                self.client.rebook_chat(user_id, self.clock())
            return delivered(result)
        except Exception as exc:  # classify() maps every failure, bugs included
            if not hasattr(exc, "description"):
                log.exception("unexpected error sending to %s", user_id)
            outcome = classify_action(exc) if self.action else classify(exc)
            # A personal copy Telegram finds too long is that recipient's name, not the bot's fault.
            return personal_failure(outcome) if self.personal else outcome

    def act(self, method: str, params: dict, user_id: int, chat_taken: bool):
        """Delete or edit one copy; an unknown outcome is retried (both are safe to repeat)."""
        call = {"deadline": self.deadline, "retry_unknown": True, "broadcast": True, "may_retry": self.may_retry}
        try:
            self.client.call(method, {"chat_id": user_id, **params}, slot_taken=True, chat_taken=chat_taken, **call)
        except Exception as exc:
            if method != "editMessageText" or NO_TEXT not in (getattr(exc, "description", "") or "").lower():
                raise
            # A copy of a media message: its caption is the text to edit (this takes a slot of its own).
            caption = {k: v for k, v in params.items() if k not in ("text", "link_preview_options")}
            self.client.call("editMessageCaption", {"chat_id": user_id, **caption, "caption": params["text"]}, **call)
        return classify_action(None)

    def take_slots(self, want: int) -> int:
        """Wait for the next broadcast rate slot, take every slot already due, book them bot-wide; return how many.

        Slots are taken before items are marked 'sending', so an item is in
        flight only once it may really go out: a crash then leaves 'unknown'
        only requests that had actually started. Slots that came due while
        this thread was committing (the limiter's burst credit) are taken
        together, so at high rates one transaction marks several items. The
        same number of slots is then booked on the bot-wide budget in one
        statement (at most SLOT_HORIZON ahead); each send waits for its own.
        """
        self.slots = []
        limiter = self.client.rate_limiter
        if limiter is None:
            taken = want
        else:
            # An album's send needs one slot per part: the first send waits for all of them.
            for _ in range(self.cost):
                if not self._wait_rate_slot(limiter):
                    return 0
            taken = 1
            # "Due now", with a millisecond's grace: the limiter reads the clock
            # again after us, so a bare clock() would make every due slot look late.
            # (A send whose parts are only partly due leaves those slots unused: a small loss of rate.)
            while taken < want and all(limiter.acquire(self.clock() + DUE_GRACE_SECONDS)
                                       for _ in range(self.cost)):
                taken += 1
        return self._book_shared(taken)

    def _wait_rate_slot(self, limiter) -> bool:
        """Wait for one slot of this pump's own rate, keeping the lease; False when the budget ends first."""
        # Bounded by the next heartbeat, so a long 429 hold never outlives the lease.
        while not limiter.acquire(min(self.deadline, self.clock() + self.lease.heartbeat)):
            left = self.deadline - self.clock()
            if left <= DUE_GRACE_SECONDS or limiter.next_slot_in() > left:
                self.stop = self.stop or Stop.BUDGET
                return False
            self.lease.keep()
            if self.stop:
                return False
        return True

    def _book_shared(self, n: int) -> int:
        """Book n bot-wide slots (waiting, lease kept, while others hold the timeline); return how many."""
        budget = self.client.broadcast_budget
        if budget is None:
            return n
        while True:
            booked_at = self.clock()
            slots = budget.acquire_many(n * self.span, self.deadline, max_wait=SLOT_HORIZON)
            # A send goes at the middle slot of its span: an album's k parts all
            # arrive at once, so it books k - 1 empty slots on each side of its k
            # (2k - 1 in all). Whichever way a 1 s window cuts the span, it
            # holds at least as many slots as the album puts parts in it, so
            # arrivals stay within cap + 1 even with replies between albums.
            sends = send_slots(slots, self.cost)
            if sends:
                self.slots = [(at, booked_at) for at in sends]
                return len(sends)
            left = self.deadline - self.clock()
            wait_s = budget.next_slot_in()
            if left <= DUE_GRACE_SECONDS or wait_s >= left:
                self.stop = self.stop or Stop.BUDGET
                return 0
            self.lease.pause_for(min(max(wait_s - SLOT_HORIZON, 0.01), left))
            if self.stop:
                return 0

    def slot_wait(self) -> float:
        """Seconds until the next broadcast rate slot."""
        limiter = self.client.rate_limiter
        return limiter.next_slot_in() if limiter is not None else 0.0

    def personal_params(self, params: dict, claim: Claim) -> dict:
        """Return the call's parameters for this claimed item: an action's copy, a greeting by name."""
        if self.action:
            params = target_params(self.method, params, claim.message_id, claim.part_ids)
        if not self.personal:
            return params
        # A send or a text edit carries "text"; an album's edit, its "caption".
        key = "caption" if "caption" in params else "text"
        return {**params, key: greeting.render(params[key], claim.first_name, lang_of(claim.language_code))}

    def too_long(self, params: dict):
        """Return the failure of a personal copy its recipient's name made too long for Telegram, else None.

        Measured as Telegram does (text_rules): that copy alone fails, with its
        numbers, and is not sent; the job's other recipients go on.
        """
        if not self.personal:
            return None
        key, limit = ("caption", text_rules.CAPTION_LIMIT) if "caption" in params else ("text", text_rules.TEXT_LIMIT)
        try:
            length = text_rules.visible_length(params[key])
        except ValueError:  # HTML the checks before sending never let through: Telegram answers for it
            return None
        return too_long_for(length, limit) if length > limit else None

    def heed(self, result: StepResult) -> tuple[Claim, ...]:
        """Take a Recorder step's verdict: its stop becomes the pump's, a halt stops every send; return its claims."""
        self.stop = result.stop
        self.processed += result.recorded
        if result.halt:
            self.halt()
        return result.claimed

    def can_dispatch(self, recorder: Recorder) -> bool:
        """True while this pump may still start sends."""
        return self.stop is None and self.clock() < self.deadline and recorder.may_have_more

    def run(self) -> None:
        """Dispatch pending items with a sliding window until done, stopped or out of budget."""
        job = db.session.get(BroadcastJob, self.job_id)
        self.action = job.kind in ACTION_KINDS
        method, params = action_params(job) if self.action else message_params(job, job.paid)
        self.method = method
        self.cost = len(params.get("message_ids") or ()) or 1
        self.span = span_for(self.cost)  # bot-wide slots per send (see _book_shared)
        self.personal = greeting.is_personal(job)
        window = self.settings["broadcast_paid_concurrency" if job.paid else "broadcast_concurrency"]
        notifier = Notifier(self.outbox, self.clock, self.deadline, worker=self.outbox_worker)
        recorder = Recorder(job, window, lease=self.lease, notifier=notifier, settings=self.settings,
                            clock=self.clock, sleep=self.sleep)

        def renew() -> None:
            self.stop = recorder.heartbeat() or self.stop

        self.lease.renew = renew
        db.session.commit()
        if not self.wait_not_before(job):
            return
        in_flight: dict[Future, tuple[int, int]] = {}
        # Connections opened before the first slot: one opened at its slot would leave late.
        self.client.warm(window)
        with ThreadPoolExecutor(max_workers=window, thread_name_prefix=f"pump{self.job_id}") as pool:
            # Start every send thread now (each waits until all are up): a thread
            # started at its first slot would send late, bunched with the next.
            started = threading.Barrier(window + 1)
            for _ in range(window):
                pool.submit(started.wait, 5)
            started.wait(5)
            while True:
                finished = [f for f in in_flight if f.done()]
                done = [(*in_flight.pop(f), f.result()) for f in finished]
                want = window - len(in_flight) if self.can_dispatch(recorder) else 0
                if want > 0 and in_flight and self.slot_wait() > RECORD_WHILE_WAITING:
                    # Record sends that finish while we wait for the next slot, so
                    # 'sending' holds only requests really in flight.
                    self.lease.wait_some(list(in_flight), self.slot_wait())
                    finished = [f for f in in_flight if f.done()]
                    done += [(*in_flight.pop(f), f.result()) for f in finished]
                    if done:
                        self.heed(recorder.step(done, 0, len(in_flight), self.stop))
                        done = []
                if want > 0:
                    want = self.take_slots(want)
                batch = self.heed(recorder.step(done, want, len(in_flight), self.stop))
                # Each item goes at its own bot-wide slot (none when this process paces alone).
                slots = self.slots[:len(batch)] if len(self.slots) >= len(batch) else [None] * len(batch)
                for claim, slot in zip(batch, slots, strict=True):
                    item_params = self.personal_params(params, claim)
                    refused = self.too_long(item_params)
                    send = partial(self.send, method, item_params, claim.user_id, slot)
                    call = (lambda r=refused: r) if refused else send
                    in_flight[pool.submit(call)] = (claim.item_id, claim.user_id)
                more = self.can_dispatch(recorder)
                if not in_flight and not more:
                    if self.stop is None:
                        self.stop = recorder.idle_reason() if recorder.drained else Stop.BUDGET
                    break
                if len(in_flight) >= window or not more:
                    self.lease.wait_some(list(in_flight), max(self.deadline - self.clock(), 0) + 60)
                    if window >= GATHER_MIN_WINDOW and not self.stop:
                        self.sleep(GATHER_SECONDS)  # let a few more finish so one commit records them
        self.heed(recorder.settle(self.stop))
        recorder.finish(self.stop)
