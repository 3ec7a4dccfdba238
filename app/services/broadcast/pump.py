"""The Pump: one job's dispatch loop under its lease: sends and actions at its Booker's slots, each recorded.

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
from app.models.broadcast import ACTION_KINDS, KIND_EDIT, RUNNING, BroadcastJob
from app.repository.telegram_budget import budget_engine
from app.services.broadcast import clicks, greeting, text_rules
from app.services.broadcast.content import action_params, by_variant, message_params, target_params
from app.services.broadcast.lease import Lease
from app.services.broadcast.notifier import Notifier
from app.services.broadcast.outcomes import (
    HELD_BACK,
    classify,
    classify_action,
    delivered,
    no_variant_text,
    personal_failure,
    too_long_for,
)
from app.services.broadcast.recorder import Claim, Recorder, StepResult
from app.services.broadcast.slots import Booker, Slot
from app.services.broadcast.stops import Stop
from app.texts import lang_of

log = logging.getLogger(__name__)
# With a wide window (paid broadcasts), wait a moment after a completion so
# one commit records several; a narrow window refills at once, because at
# 4 sends in flight and 150 ms latency every millisecond of refill delay
# costs rate.
GATHER_SECONDS = 0.005
GATHER_MIN_WINDOW = 16
# When the next slot is this far off, record sends that finish meanwhile
# (an extra short transaction); nearer slots record them with the next mark,
# so at full rate each item still costs one transaction.
RECORD_WHILE_WAITING = 0.05
# Telegram's answer when editMessageText meets a media copy: its caption is edited instead.
NO_TEXT = "there is no text in the message to edit"


class Pump:
    """State of one pump call: this thread claims and records (through the Recorder), the pool's threads send.

    A send thread still reaches the database itself: through the Booker it
    books its chat (and a fresh bot-wide slot when it woke late) and, before
    retrying after a 429, reads the job's status on its own connection (may_retry).
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
        self.track = None  # each copy's button gets its own tracked link (set by run, see clicks.tracker)
        self.action = False  # an unsend or edit job (set by run)

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

    def send(self, method: str, params: dict, user_id: int, slot: Slot | None = None):
        """Send one recipient's copy in a worker thread at its bot-wide slot (already booked; None: paced alone)."""
        try:
            ready = self.booker.wait_for(slot, user_id)
            if ready is None:
                return HELD_BACK
            if not self.lease.fresh():
                # This process stalled past its lease: another pump or cron may already count this
                # item unknown and an unsend read the ledger, so a copy sent now could never be reached.
                log.warning("job %s: lease too old to send to %s (this process stalled)", self.job_id, user_id)
                return HELD_BACK
            if self.action:
                return self.act(method, params, user_id, ready.chat_taken)
            result = self.client.call(method, {"chat_id": user_id, **params}, deadline=self.deadline,
                                      retry_unknown=False, broadcast=True, slot_taken=True,
                                      chat_taken=ready.chat_taken, may_retry=self.may_retry,
                                      read_timeout=self.answer_wait())
            self.booker.after_answer(user_id, ready)
            return delivered(result)
        except Exception as exc:  # classify() maps every failure, bugs included
            if not hasattr(exc, "description"):
                log.exception("unexpected error sending to %s", user_id)
            outcome = classify_action(exc) if self.action else classify(exc)
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
        """Delete or edit one copy; an unknown outcome is retried (both are safe to repeat)."""
        call = {"deadline": self.deadline, "retry_unknown": True, "broadcast": True, "may_retry": self.may_retry,
                "read_timeout": self.answer_wait()}
        try:
            self.client.call(method, {"chat_id": user_id, **params}, slot_taken=True, chat_taken=chat_taken, **call)
        except Exception as exc:
            if method != "editMessageText" or NO_TEXT not in (getattr(exc, "description", "") or "").lower():
                raise
            # A copy of a media message: its caption is the text to edit (this takes a slot of its own).
            caption = {k: v for k, v in params.items() if k not in ("text", "link_preview_options")}
            self.client.call("editMessageCaption", {"chat_id": user_id, **caption, "caption": params["text"]}, **call)
        return classify_action(None)

    def take_slots(self, want: int) -> list[Slot | None]:
        """Take up to ``want`` sends' rate slots (the Booker waits and books); none once a stop came first."""
        taken = self.booker.take(want)
        if isinstance(taken, Stop):
            self.stop = self.stop or taken
            return []
        return taken

    def make_booker(self, parts: int) -> Booker:
        """Return the Booker of this pump's sends: its client's pacers, its deadline, its lease kept while waiting."""
        client = self.client
        return Booker(parts, limiter=client.rate_limiter, budget=client.broadcast_budget,
                      pace_chat=client.pace_chat if client.pace_recipients else None, rebook_chat=client.rebook_chat,
                      clock=self.clock, sleep=self.sleep, deadline=self.deadline, heartbeat=self.lease.heartbeat,
                      keep=self.lease.keep, pause=self.lease.pause_for, stopped=lambda: self.stop)

    def personal_params(self, params: dict, claim: Claim) -> dict:
        """Return the call's parameters for this claimed item: an action's copy, a tracked link, a greeting by name."""
        if self.action:
            params = target_params(self.method, params, claim.message_id, claim.part_ids)
        if self.track:
            params = self.track(params, claim.item_id, claim.user_id)
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
        # Each language variant's method and parameters; a claim without a variant gets the default's.
        variant_calls = by_variant(job, method, params)
        strict = job.kind == KIND_EDIT  # an edit's copies get their own variant's text, or none
        if strict and job.text is None:
            del variant_calls[None]  # an edit of named variants only: the default's copies are not its to edit
        # Messages one recipient's send puts out (an album's parts): each takes a rate slot.
        self.booker = self.make_booker(len(params.get("message_ids") or ()) or 1)
        self.personal = greeting.is_personal(job)
        self.track = clicks.tracker(job)
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
                if want > 0 and in_flight and self.booker.slot_wait() > RECORD_WHILE_WAITING:
                    # Record sends that finish while we wait for the next slot, so
                    # 'sending' holds only requests really in flight.
                    self.lease.wait_some(list(in_flight), self.booker.slot_wait())
                    finished = [f for f in in_flight if f.done()]
                    done += [(*in_flight.pop(f), f.result()) for f in finished]
                    if done:
                        self.heed(recorder.step(done, 0, len(in_flight), self.stop))
                        done = []
                slots = self.take_slots(want) if want > 0 else []
                batch = self.heed(recorder.step(done, len(slots), len(in_flight), self.stop))
                # Each item goes at its own bot-wide slot (None when this process paces alone).
                for claim, slot in zip(batch, slots[:len(batch)], strict=True):
                    call = variant_calls.get(claim.variant)
                    if call is None and not strict:
                        call = variant_calls[None]  # a send or unsend: a variant without its own call
                    if call is None:
                        # An edit never gives a copy another variant's text: without its own, that copy fails.
                        in_flight[pool.submit(lambda v=claim.variant: no_variant_text(v))] = (claim.item_id,
                                                                                              claim.user_id)
                        continue
                    item_method, item_params = call
                    item_params = self.personal_params(item_params, claim)
                    refused = self.too_long(item_params)
                    send = partial(self.send, item_method, item_params, claim.user_id, slot)
                    call = (lambda r=refused: r) if refused else send
                    in_flight[pool.submit(call)] = (claim.item_id, claim.user_id)
                more = self.can_dispatch(recorder)
                if not in_flight and not more:
                    if self.stop is None and recorder.drained:
                        self.stop = recorder.idle_reason()
                        if self.stop is None:
                            continue  # a pending item was found behind the cursor: send it now
                    self.stop = self.stop or Stop.BUDGET
                    break
                if len(in_flight) >= window or not more:
                    self.lease.wait_some(list(in_flight), max(self.deadline - self.clock(), 0) + 60)
                    if window >= GATHER_MIN_WINDOW and not self.stop:
                        self.sleep(GATHER_SECONDS)  # let a few more finish so one commit records them
        self.heed(recorder.settle(self.stop))
        recorder.finish(self.stop)
