"""The cron policy: pump() drains one running job for a bounded time, pump_all() every due one in turn."""
from __future__ import annotations

import logging
import sys
import time
from dataclasses import asdict, dataclass, field

from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.models.broadcast import RUNNING, BroadcastJob
from app.repository import broadcast_jobs as jobs_repo
from app.services.broadcast.ab import cron as ab_cron
from app.services.broadcast.actions import expiry
from app.services.broadcast.jobs import control, purge
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.schedule import quiet_release, recurring, releases
from app.services.broadcast.sending import stars
from app.services.broadcast.sending.pump import Pump
from app.services.broadcast.sending.stops import JOB_ENDED, Stop
from app.services.chains import digest as chains_digest
from app.services.chains import due as chains_due
from app.services.settings import load_settings

log = logging.getLogger(__name__)
# pump_all waits this long for a lease another pump is about to release (the
# previous cron call's tail), polling every LEASE_MISS_POLL_SECONDS.
LEASE_MISS_WAIT_SECONDS = 6.0
LEASE_MISS_POLL_SECONDS = 0.25
# A scheduled job due within pump_all's budget is waited for (polling at least
# this often), unless less than the margin would be left to send it.
SCHEDULE_POLL_SECONDS = 0.05
SCHEDULE_MARGIN_SECONDS = 1.0
# After the lease is released: the summary or a pause alert still gets this
# long (a reply needs at least the outbox's 0.5 s to start).
FINAL_FLUSH_SECONDS = 1.0


@dataclass
class PumpResult:
    """What one pump call did and where the job stands."""

    job_id: int
    acquired: bool
    stop: Stop
    processed: int = 0
    seconds: float = 0.0
    job: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Return a JSON-safe dict."""
        return asdict(self)


def pump(job_id: int, max_seconds: float, *, settings: dict | None = None, client=None, outbox=None,
         clock=time.monotonic, sleep=time.sleep) -> PumpResult:
    """Send a running job's pending items for at most max_seconds; safe to call concurrently.

    Without a client, the job's own one is used: the paid client (its own
    rate) for a paid job, whoever calls — an admin's request included.
    """
    from app.services.telegram_factory import get_client, new_outbox

    settings = settings or load_settings()
    db.session.commit()
    job = db.session.get(BroadcastJob, job_id)
    if job is None:
        db.session.commit()
        return PumpResult(job_id, False, Stop.NO_SUCH_JOB)
    if job.status != RUNNING:
        result = PumpResult(job_id, False, Stop.NOT_RUNNING, job=job_status(job).as_dict())
        db.session.commit()
        return result
    paid, billed = job.paid, stars.billed(job)
    db.session.commit()
    client = client or get_client(settings, paid=paid)
    own_outbox = outbox is None
    outbox = outbox or new_outbox(client)
    p = Pump(job_id, max_seconds, settings, client, outbox, clock, sleep)
    if not p.lease.acquire():
        return _result(p, False, Stop.LEASE_MISS, 0)
    if own_outbox:
        # Progress edits and alerts go out from the outbox's own thread, so the
        # pump's thread never waits on them (they are best effort).
        outbox.start()
        p.outbox_worker = True
    try:
        _run(p, billed)
    except Exception:
        db.session.rollback()
        p.stop = Stop.DB_ERROR if isinstance(sys.exc_info()[1], SQLAlchemyError) else Stop.ERROR
        log.exception("pump of job %s stopped by an error", job_id)
        raise
    finally:
        processed = p.processed
        p.lease.release()
        if own_outbox:
            # The summary and last edit get what is left of the budget (a moment at least), never more;
            # once they are answered the lane is released again (the next pump is alone at once).
            outbox.close(deadline=max(p.deadline, clock() + FINAL_FLUSH_SECONDS))
            p.release_lane()
    if p.stop == Stop.DONE:
        control.start_next_if_idle()
    return _result(p, True, p.stop or Stop.BUDGET, processed)


def _run(p: Pump, billed: bool) -> None:
    """Run the pump: a paid job's run starts against its Stars balance, and its spend is read once it no longer runs."""
    p.stop = stars.before_run(p.job_id, p.client, p.settings, p.outbox) if billed else None
    if p.stop is None:
        p.run()
    if billed:
        stars.after_run(p.job_id, p.client, p.outbox)


def _result(p: Pump, acquired: bool, stop: Stop, processed: int) -> PumpResult:
    """Build a PumpResult with the job's fresh counters."""
    db.session.expire_all()
    job = db.session.get(BroadcastJob, p.job_id)
    status = job_status(job).as_dict() if job else {}
    db.session.commit()
    return PumpResult(p.job_id, acquired, stop, processed, round(p.clock() - p.started, 3), status)


def _wait_for_schedule(settings: dict, deadline: float, clock, sleep) -> bool:
    """Sleep until a scheduled job falls due within this budget (so it starts on time); False if none does."""
    wait_s = releases.seconds_until_due(settings)
    if wait_s is None or clock() + wait_s >= deadline - SCHEDULE_MARGIN_SECONDS:
        return False
    sleep(max(wait_s, SCHEDULE_POLL_SECONDS))
    return True


def pump_all(max_seconds: float, *, settings: dict | None = None, client=None,
             clock=time.monotonic, sleep=time.sleep) -> list[PumpResult]:
    """Drain the running job, then queued ones, within one budget (what cron calls)."""
    settings = settings or load_settings()
    deadline = clock() + max_seconds
    lease_wait_until = min(deadline - 1.0, clock() + LEASE_MISS_WAIT_SECONDS)
    results: list[PumpResult] = []
    seen: set[int] = set()
    purge.expire_stopped_orphans()
    releases.ask_about_missed(settings, client=client)
    quiet_release.resume_after_quiet(settings)
    recurring.release_due(settings)  # each occurrence that has come: its own job, queued (or skipped)
    expiry.run_due(settings)  # due auto-expiries queue their unsend jobs, pumped below like any job
    chains_due.run_due(settings)  # each drip-chain step's newly due users: one queued job per step
    chains_digest.send_due(settings, client=client)  # once a Tehran day: yesterday's chain numbers to the admins
    ab_cron.run(settings, client=client)  # due A/B tests: the winner's job, queued once (or the admins asked)
    while deadline - clock() > 0.5:
        releases.start_due(settings)
        control.start_next_if_idle()
        job_id = jobs_repo.running_job_id()
        db.session.commit()
        if job_id is None and _wait_for_schedule(settings, deadline, clock, sleep):
            continue
        if job_id is None or job_id in seen:
            break
        seen.add(job_id)
        result = pump(job_id, deadline - clock(), settings=settings, client=client, clock=clock, sleep=sleep)
        if result.stop == Stop.LEASE_MISS and clock() < lease_wait_until:
            # The previous cron call's pump is finishing its last sends: wait
            # for its lease rather than lose this whole minute.
            seen.discard(job_id)
            sleep(LEASE_MISS_POLL_SECONDS)
            continue
        results.append(result)
        if result.stop not in JOB_ENDED:
            break
    return results
