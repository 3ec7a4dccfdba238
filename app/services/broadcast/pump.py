"""pump(): one bounded, lease-holding drain of a running job; pump_all() for cron."""
from __future__ import annotations

import logging
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field

from app.clock import utcnow
from app.extensions import db
from app.models.broadcast import CONTENT_COPY, RUNNING, BroadcastJob
from app.repository import broadcast_jobs as jobs_repo
from app.services.broadcast import jobs as jobs_service
from app.services.broadcast.outcomes import classify
from app.services.broadcast.recorder import Recorder
from app.services.broadcast.status import job_status
from app.services.settings import load_settings
from app.settings_schema import LEASE_TTL_SECONDS
from app.texts import t

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


@dataclass
class PumpResult:
    """What one pump call did and where the job stands."""

    job_id: int
    acquired: bool
    stop: str
    processed: int = 0
    seconds: float = 0.0
    job: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Return a JSON-safe dict."""
        return asdict(self)


def message_params(job: BroadcastJob, paid: bool) -> tuple[str, dict]:
    """Return the Bot API method and parameters that deliver the job's content."""
    params: dict = {}
    if job.button_text and job.button_url:
        params["reply_markup"] = {"inline_keyboard": [[{"text": job.button_text, "url": job.button_url}]]}
    if paid:
        params["allow_paid_broadcast"] = True
    if job.content_type == CONTENT_COPY:
        params.update(from_chat_id=job.from_chat_id, message_id=job.source_message_id)
        return "copyMessage", params
    params.update(text=job.text, parse_mode=job.parse_mode or "HTML", link_preview_options={"is_disabled": True})
    return "sendMessage", params


class Pump:
    """State of one pump call; the thread pool sends, this thread does all database work."""

    def __init__(self, job_id: int, max_seconds: float, settings: dict, client, outbox, clock, sleep):
        self.job_id, self.settings, self.client, self.outbox = job_id, settings, client, outbox
        self.clock, self.sleep = clock, sleep
        self.started = clock()
        self.deadline = self.started + max_seconds
        self.token = uuid.uuid4().hex
        self.stop: str | None = None

    def fence(self, *, require_running: bool) -> bool:
        """Renew our lease as the first statement of a write transaction."""
        return jobs_repo.fence(self.job_id, self.token, utcnow(), LEASE_TTL_SECONDS, require_running=require_running)

    def acquire(self) -> bool:
        """Take the lease and turn a dead pump's in-flight items into unknown."""
        if not jobs_repo.acquire_lease(self.job_id, self.token, utcnow(), LEASE_TTL_SECONDS):
            db.session.commit()
            return False
        Recorder.expire_orphans(self.job_id)
        db.session.commit()
        return True

    def release(self) -> None:
        """Give the lease back (no-op if it was taken over)."""
        try:
            jobs_repo.release_lease(self.job_id, self.token)
            db.session.commit()
        except Exception:  # the next pump simply waits for the lease to expire
            db.session.rollback()
            log.exception("could not release the lease of job %s", self.job_id)

    def wait_not_before(self, job: BroadcastJob) -> bool:
        """Honour a 429's not_before: sleep if it ends within the budget, else stop."""
        if not job.not_before:
            return True
        wait_s = (job.not_before - utcnow()).total_seconds()
        if wait_s <= 0:
            return True
        if self.clock() + wait_s >= self.deadline - 0.5:
            self.stop = "not_before"
            return False
        self.sleep(wait_s)
        return True

    def send(self, method: str, params: dict, user_id: int):
        """Send one recipient's copy in a worker thread (its rate slot already taken)."""
        try:
            self.client.call(method, {"chat_id": user_id, **params}, deadline=self.deadline,
                             retry_unknown=False, broadcast=True, slot_taken=True)
            return classify(None)
        except Exception as exc:  # classify() maps every failure, bugs included
            if not hasattr(exc, "description"):
                log.exception("unexpected error sending to %s", user_id)
            return classify(exc)

    def take_slots(self, want: int) -> int:
        """Wait for the next broadcast rate slot, then take every slot already due; return how many.

        Slots are taken before items are marked 'sending', so an item is in
        flight only once it may really go out: a crash then leaves 'unknown'
        only requests that had actually started. Slots that came due while
        this thread was committing (the limiter's burst credit) are taken
        together, so at high rates one transaction marks several items.
        """
        limiter = self.client.rate_limiter
        if limiter is None:
            return want
        if not limiter.acquire(self.deadline):
            self.stop = self.stop or "budget"
            return 0
        taken = 1
        # "Due now", with a millisecond's grace: the limiter reads the clock
        # again after us, so a bare clock() would make every due slot look late.
        while taken < want and limiter.acquire(self.clock() + DUE_GRACE_SECONDS):
            taken += 1
        return taken

    def slot_wait(self) -> float:
        """Seconds until the next broadcast rate slot."""
        limiter = self.client.rate_limiter
        return limiter.next_slot_in() if limiter is not None else 0.0

    def can_dispatch(self, recorder: Recorder) -> bool:
        """True while this pump may still start sends."""
        return self.stop is None and self.clock() < self.deadline and recorder.may_have_more

    def run(self) -> None:
        """Dispatch pending items with a sliding window until done, stopped or out of budget."""
        job = db.session.get(BroadcastJob, self.job_id)
        method, params = message_params(job, job.paid)
        window = self.settings["broadcast_paid_concurrency" if job.paid else "broadcast_concurrency"]
        recorder = Recorder(self, job, window)
        db.session.commit()
        if not self.wait_not_before(job):
            return
        in_flight: dict[Future, tuple[int, int]] = {}
        with ThreadPoolExecutor(max_workers=window, thread_name_prefix=f"pump{self.job_id}") as pool:
            while True:
                finished = [f for f in in_flight if f.done()]
                done = [(*in_flight.pop(f), f.result()) for f in finished]
                want = window - len(in_flight) if self.can_dispatch(recorder) else 0
                if want > 0 and in_flight and self.slot_wait() > RECORD_WHILE_WAITING:
                    # Record sends that finish while we wait for the next slot, so
                    # 'sending' holds only requests really in flight.
                    wait(list(in_flight), timeout=self.slot_wait(), return_when=FIRST_COMPLETED)
                    finished = [f for f in in_flight if f.done()]
                    done += [(*in_flight.pop(f), f.result()) for f in finished]
                    if done:
                        recorder.step(done, 0, len(in_flight))
                        done = []
                if want > 0:
                    want = self.take_slots(want)
                for item_id, user_id in recorder.step(done, want, len(in_flight)):
                    in_flight[pool.submit(self.send, method, params, user_id)] = (item_id, user_id)
                more = self.can_dispatch(recorder)
                if not in_flight and not more:
                    if self.stop is None:
                        self.stop = recorder.idle_reason() if recorder.drained else "budget"
                    break
                if len(in_flight) >= window or not more:
                    wait(list(in_flight), timeout=max(self.deadline - self.clock(), 0) + 60,
                         return_when=FIRST_COMPLETED)
                    if window >= GATHER_MIN_WINDOW and not self.stop:
                        self.sleep(GATHER_SECONDS)  # let a few more finish so one commit records them
        recorder.finish()


def pump(job_id: int, max_seconds: float, *, settings: dict | None = None, client=None, outbox=None,
         clock=time.monotonic, sleep=time.sleep) -> PumpResult:
    """Send a running job's pending items for at most max_seconds; safe to call concurrently."""
    from app.services.telegram_factory import get_client, new_outbox

    settings = settings or load_settings()
    db.session.commit()
    job = db.session.get(BroadcastJob, job_id)
    if job is None:
        db.session.commit()
        return PumpResult(job_id, False, "no_such_job")
    if job.status != RUNNING:
        result = PumpResult(job_id, False, "not_running", job=job_status(job))
        db.session.commit()
        return result
    paid = job.paid
    db.session.commit()
    client = client or get_client(settings, paid=paid)
    own_outbox = outbox is None
    outbox = outbox or new_outbox(client)
    p = Pump(job_id, max_seconds, settings, client, outbox, clock, sleep)
    if not p.acquire():
        return _result(p, False, "lease_miss", 0)
    processed = 0
    try:
        p.run()
    except Exception:
        db.session.rollback()
        p.stop = "error"
        log.exception("pump of job %s stopped by an error", job_id)
        raise
    finally:
        processed = getattr(p, "processed", 0)
        p.release()
        if own_outbox:
            outbox.flush(deadline=clock() + 5)
    if p.stop == "done":
        jobs_service.start_next_if_idle()
    return _result(p, True, p.stop or "budget", processed)


def _result(p: Pump, acquired: bool, stop: str, processed: int) -> PumpResult:
    """Build a PumpResult with the job's fresh counters."""
    db.session.expire_all()
    job = db.session.get(BroadcastJob, p.job_id)
    status = job_status(job) if job else {}
    db.session.commit()
    return PumpResult(p.job_id, acquired, stop, processed, round(p.clock() - p.started, 3), status)


def pump_all(max_seconds: float, *, settings: dict | None = None, client=None,
             clock=time.monotonic, sleep=time.sleep) -> list[PumpResult]:
    """Drain the running job, then queued ones, within one budget (what cron calls)."""
    settings = settings or load_settings()
    deadline = clock() + max_seconds
    results: list[PumpResult] = []
    seen: set[int] = set()
    while deadline - clock() > 0.5:
        jobs_service.start_next_if_idle()
        job_id = jobs_repo.running_job_id()
        db.session.commit()
        if job_id is None or job_id in seen:
            break
        seen.add(job_id)
        result = pump(job_id, deadline - clock(), settings=settings, client=client, clock=clock, sleep=sleep)
        results.append(result)
        if result.stop not in ("done", "paused", "cancelled", "not_running"):
            break
    return results


def reason_text(key: str, lang: str, **values) -> str:
    """Render a pause reason in the job's language."""
    return t(key, lang, **values)
