"""A pump's lease on its job: take it, prove it in each write, renew it while waiting, give it back."""
from __future__ import annotations

import logging
import uuid
from concurrent.futures import FIRST_COMPLETED, wait
from datetime import datetime

from app.extensions import db
from app.repository import broadcast_jobs as jobs_repo
from app.repository.db_clock import DbClock
from app.repository.deadlocks import in_transaction
from app.services.broadcast.jobs import purge
from app.settings_schema import LEASE_HEARTBEAT_SECONDS, LEASE_TTL_SECONDS

log = logging.getLogger(__name__)
# A send starts only within this share of the lease's TTL since its last renewal (25 s of 30):
# the database's expiry counts from before the renewal's answer reached us.
FRESH_SHARE = 5 / 6


class Lease:
    """One pump's hold on a job, under a token of its own; renewed by fences and heartbeats."""

    def __init__(self, job_id: int, clock, sleep, db_clock: DbClock | None = None):
        self.job_id, self.clock, self.sleep = job_id, clock, sleep
        self.token = uuid.uuid4().hex
        self.db_clock = db_clock
        # Read here, not at import, so tests can shorten them.
        self.ttl, self.heartbeat = LEASE_TTL_SECONDS, LEASE_HEARTBEAT_SECONDS
        self.renewed_at = clock()
        # Renews the lease in a transaction of its own when a heartbeat is due (set once the pump records).
        self.renew = None

    def now(self) -> datetime:
        """Return the database's UTC time: leases and retry_after are shared by every server."""
        if self.db_clock is None:
            self.db_clock = DbClock(self.clock)
        return self.db_clock.now()

    def acquire(self) -> bool:
        """Take the lease and turn a dead pump's in-flight items into unknown (run again if a deadlock's victim)."""
        def take() -> bool:
            now = self.now()
            if not jobs_repo.acquire_lease(self.job_id, self.token, now, self.ttl):
                return False
            purge.expire_orphans(self.job_id, now)
            return True

        return in_transaction(take)

    def fence(self, *, require_running: bool, counts: dict | None = None) -> bool:
        """Renew our lease as the first statement of a write transaction (moving the job's counters by ``counts``)."""
        ok = jobs_repo.fence(self.job_id, self.token, self.now(), self.ttl, require_running=require_running,
                             counts=counts)
        if ok:
            self.renewed_at = self.clock()
        return ok

    def fresh(self) -> bool:
        """True while this process's last renewal surely still holds the lease (FRESH_SHARE of its TTL).

        Counted on this process's own clock: a process that stalled (stopped,
        starved of CPU, its database unreachable) past it may have lost the
        lease without yet knowing, so it starts no request.
        """
        return self.clock() - self.renewed_at < self.ttl * FRESH_SHARE

    def keep(self) -> None:
        """Renew the lease if a heartbeat is due (while the pump's thread waits on sends or a 429)."""
        if self.renew is not None and self.clock() - self.renewed_at >= self.heartbeat:
            self.renew()

    def pause_for(self, seconds: float) -> None:
        """Sleep, renewing the lease every heartbeat: the lease only covers gaps between renewals."""
        end = self.clock() + seconds
        while (left := end - self.clock()) > 0:
            self.sleep(min(left, self.heartbeat))
            self.keep()

    def wait_until(self, when: datetime, deadline: float) -> bool:
        """Sleep (keeping the lease) until database time ``when``; False, at once, if that is past the deadline."""
        wait_s = (when - self.now()).total_seconds()
        if wait_s <= 0:
            return True
        if self.clock() + wait_s >= deadline - 0.5:
            return False
        self.pause_for(wait_s)
        return True

    def wait_some(self, futures, timeout: float) -> None:
        """Wait until one of futures finishes or timeout passes, keeping the lease meanwhile."""
        end = self.clock() + timeout
        while futures and (left := end - self.clock()) > 0:
            finished, _ = wait(futures, timeout=min(left, self.heartbeat), return_when=FIRST_COMPLETED)
            if finished:
                return
            self.keep()

    def wait_or_sleep(self, futures, seconds: float) -> None:
        """Wait up to seconds for one of futures to finish (with none, sleep up to a heartbeat), keeping the lease."""
        if futures:
            self.wait_some(futures, seconds)
        elif seconds > 0:
            self.sleep(min(seconds, self.heartbeat))
            self.keep()

    def release(self) -> None:
        """Give the lease back (no-op if it was taken over)."""
        try:
            jobs_repo.release_lease(self.job_id, self.token)
            db.session.commit()
        except Exception:  # the next pump simply waits for the lease to expire
            db.session.rollback()
            log.exception("could not release the lease of job %s", self.job_id)
