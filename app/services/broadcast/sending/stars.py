"""A paid broadcast against the bot's Stars balance: read before it sends, refused when short, its spend after.

Telegram bills each paid copy beyond its free rate 0.1 Star from the bot's
balance and refuses one it cannot pay. So a paid job's run first reads the
balance (getMyStarBalance) and pauses, saying why and what to do, when it
cannot cover every copy left at 0.1 Star (the most it may cost); a balance
that cannot be read pauses it too. Once the job no longer runs, the balance
is read again and its fall is the job's spend as Telegram took it, shown
beside our estimate (app.repository.broadcast_stars keeps both).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from app.extensions import db
from app.models.broadcast import KIND_SEND, RUNNING, TERMINAL, BroadcastJob
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_stars as stars_repo
from app.services import audit
from app.services.broadcast.jobs.estimate import paid_messages
from app.services.broadcast.jobs.star_amount import PER_PAID_MESSAGE as PER_MESSAGE
from app.services.broadcast.jobs.star_amount import of_star_amount, stars_text
from app.services.broadcast.reporting import alerts
from app.services.broadcast.reporting.progress import refresh_progress
from app.services.broadcast.sending.stops import Stop
from app.telegram.errors import TelegramError
from app.texts import t

log = logging.getLogger(__name__)
# The balance read's own deadline: a pump must not wait on it longer.
READ_SECONDS = 3.0


@dataclass(frozen=True)
class Cover:
    """The balance against the most the copies left may cost (nanostars); balance None: it could not be read."""

    balance: int | None
    cost: int

    @property
    def enough(self) -> bool:
        return self.balance is not None and self.balance >= self.cost

    def reason(self, lang: str) -> str:
        """Say why a paid broadcast may not start, and what to do, in the admin's language."""
        if self.balance is None:
            return t("reason_stars_unknown", lang)
        return t("reason_stars_short", lang, balance=stars_text(self.balance), cost=stars_text(self.cost))


def billed(job: BroadcastJob) -> bool:
    """True for a job whose copies Telegram bills: a paid send (an unsend or edit carries no paid flag)."""
    return bool(job.paid) and (job.kind or KIND_SEND) == KIND_SEND


def read_balance(client) -> int | None:
    """Return the bot's Stars balance in nanostars; None when Telegram could not be asked or answered oddly."""
    try:
        return of_star_amount(client.get_my_star_balance(deadline=time.monotonic() + READ_SECONDS,
                                                         hard_deadline=True))
    except (TelegramError, AttributeError, TypeError, ValueError):
        log.warning("the bot's Stars balance could not be read", exc_info=True)
        return None


def cover(client, copies: int) -> Cover:
    """Read the balance and set it against ``copies`` paid copies at 0.1 Star each."""
    return Cover(read_balance(client), copies * PER_MESSAGE)


def refusal_for(recipients: int, settings: dict, client, lang: str) -> str | None:
    """Return why a paid broadcast to ``recipients`` may not start now, and what to do (None: the balance covers it)."""
    found = cover(client, min(recipients, settings["broadcast_paid_max_messages"]))
    return None if found.enough else found.reason(lang)


def copies_left(job: BroadcastJob) -> int:
    """Return the copies a paid job may still be billed for: its pending ones, up to what its cap leaves."""
    charged = job.sent_count + job.unknown_count
    room = job.pending_count if job.paid_limit is None else max(job.paid_limit - charged, 0)
    return min(job.pending_count, room)


def estimate(job: BroadcastJob, settings: dict) -> int:
    """Return the likely cost of the whole job in nanostars (estimate.paid_messages under the job's own cap)."""
    cap = job.paid_limit if job.paid_limit is not None else settings["broadcast_paid_max_messages"]
    likely, _ = paid_messages(job.total_count, {**settings, "broadcast_paid_max_messages": cap})
    return likely * PER_MESSAGE


def before_run(job_id: int, client, settings: dict, outbox) -> Stop | None:
    """Open a paid job's run against its balance (under its lease); NO_STARS: paused, the admins told why."""
    job = db.session.get(BroadcastJob, job_id)
    row = stars_repo.get(job_id)
    if job is None or not billed(job) or (row is not None and row.opened_balance is not None):
        db.session.commit()
        return None  # not billed, or a stretch is open: this run goes on with it
    left, lang, total_estimate = copies_left(job), job.progress_lang or "fa", estimate(job, settings)
    db.session.commit()  # no transaction stays open across the balance read
    found = cover(client, left)
    if not found.enough:
        reason = found.reason(lang)
        paused = jobs_repo.pause(job_id, reason)
        if paused:
            audit.record(audit.ACTOR_SYSTEM, audit.PAUSED, job_id, reason)
        db.session.commit()
        if paused:  # the guarded UPDATE matched here alone: one alert
            alerts.job_paused(job_id, reason, outbox=outbox)
            refresh_progress(job_id, outbox=outbox, lang=lang)
        log.warning("job %s: paused before sending: %s", job_id, reason)
        return Stop.NO_STARS
    stars_repo.open_stretch(job_id, found.balance, total_estimate)
    db.session.commit()
    return None


def after_run(job_id: int, client, outbox) -> None:
    """Close a paid job's stretch once it no longer runs: its balance's fall is added to what it spent.

    An ended job's admins are then told the spend beside the estimate.
    """
    db.session.expire_all()
    job = db.session.get(BroadcastJob, job_id)
    row = stars_repo.get(job_id)
    opened = row.opened_balance if row is not None else None
    running, ended = job is not None and job.status == RUNNING, job is not None and job.status in TERMINAL
    db.session.commit()
    if opened is None or running:
        return  # nothing open, or the job sends on: the stretch stays open for its next run
    balance = read_balance(client)
    if balance is None:
        return  # left open: its spend shows as not known ("—") until a later run of the job closes it
    closed = stars_repo.close_stretch(job_id, opened, balance)
    db.session.commit()
    if closed and ended:
        alerts.job_stars_spent(job_id, outbox=outbox)
