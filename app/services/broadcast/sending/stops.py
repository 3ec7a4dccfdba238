"""Why a pump call stopped: one vocabulary for the pump, recorder, runner, CLI and endpoint."""
from __future__ import annotations

from enum import Enum


class Stop(str, Enum):
    """A pump's stop reason; a str, so JSON and log lines show its plain value."""

    DONE = "done"                  # every item final; the job completed
    INCOMPLETE = "incomplete"      # nothing left to claim, but items are not all final
    BUDGET = "budget"              # the pump's time budget ended (more to do)
    NOT_BEFORE = "not_before"      # a 429's retry_after outlasts the budget
    RATE_LIMITED = "rate_limited"  # Telegram answered 429 during this pump
    NETWORK = "network"            # Telegram unreachable; items back to pending
    BREAKER = "breaker"            # too many non-recipient errors in a row; job paused
    UNAUTHORIZED = "unauthorized"  # the token was refused; job paused
    PAID_CAP = "paid_cap"          # the paid-message cap is reached; job paused
    NO_STARS = "no_stars"          # the Stars balance cannot pay a paid job's copies; job paused
    QUIET_HOURS = "quiet_hours"    # quiet hours began; job paused until they end (cron resumes it)
    LEASE_LOST = "lease_lost"      # another pump took the lease over; this one wrote nothing more
    LEASE_MISS = "lease_miss"      # another pump holds the lease
    NOT_RUNNING = "not_running"    # the job was not running when the pump was called
    NO_SUCH_JOB = "no_such_job"
    PAUSED = "paused"              # an admin (or the engine) paused the job meanwhile
    CANCELLED = "cancelled"        # an admin cancelled the job meanwhile
    COMPLETED = "completed"        # the job completed meanwhile
    QUEUED = "queued"              # the job went back to the queue meanwhile
    DB_ERROR = "db_error"          # the database failed; what was known is kept
    ERROR = "error"                # an unexpected error; the pump raised it

    def __str__(self) -> str:
        return self.value

    @classmethod
    def from_job_status(cls, status: str | None) -> Stop:
        """Return the stop for a job found no longer running."""
        try:
            return cls(status)
        except ValueError:
            return cls.NOT_RUNNING


# Stops after which another pump in the same request would only repeat them.
FINAL = frozenset(set(Stop) - {Stop.BUDGET, Stop.INCOMPLETE})
# Stops after which cron's pump_all moves on to the next queued job.
# (Not after the breaker: systemic errors would hit the next job too. After a lack of Stars, yes: a free
# job is not billed, and a paid one reads the balance before it sends.)
JOB_ENDED = frozenset({Stop.DONE, Stop.PAUSED, Stop.QUIET_HOURS, Stop.CANCELLED, Stop.NOT_RUNNING, Stop.COMPLETED,
                       Stop.NO_STARS})
