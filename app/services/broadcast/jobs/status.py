"""A job's counters, rate and ETA as a frozen view (pure), and its JSON form for the command line.

`pending` counts items still to be sent. A cancelled job sends nothing more,
so its unfinished items are `not_sent` instead ("not sent (cancelled)"), never pending.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.models.broadcast import (
    CANCELLED,
    COMPLETED,
    CONTENT_ALBUM,
    FINAL_STATUSES,
    KIND_SEND,
    KIND_UNSEND,
    PAUSED,
    QUIET_PAUSE,
    BroadcastJob,
)
from app.models.segment_rule import Target
from app.repository import broadcast_stars as stars_repo
from app.repository.db_clock import db_utcnow
from app.services.broadcast.content import keyboard
from app.services.broadcast.jobs.star_amount import as_stars
from app.services.broadcast.schedule.send_time import tehran_iso


def _iso(value: datetime | None) -> str | None:
    """Render a naive-UTC timestamp as ISO 8601 with a Z."""
    return value.isoformat(timespec="seconds") + "Z" if value else None


def _second(value: datetime | None) -> datetime | None:
    """Drop the fraction of a second: the view shows (and measures durations in) the whole seconds it prints."""
    return value.replace(microsecond=0) if value else None


@dataclass(frozen=True)
class JobView:
    """What one job's status shows: its counters, rate (items/s since start), ETA (s), options and times."""

    id: int
    status: str
    audience: str
    total: int
    sent: int
    failed: int
    skipped: int
    unknown: int
    pending: int
    # An unsend/edit job (sent = copies deleted/edited): gone = no longer there, too_old = past 48 h.
    kind: str
    source_job_id: int | None
    gone: int
    too_old: int
    not_sent: int
    rate: float | None
    eta: int | None
    pause_reason: str | None
    paid: bool
    langs: tuple[str, ...]
    active_days: int | None
    joined_days: int | None
    sources: tuple[str, ...]
    silent: bool
    protect: bool
    # Naive UTC, whole seconds.
    created_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    # A scheduled job's time, in UTC and as Tehran wall time; missed: the admins were asked.
    send_at: datetime | None
    send_at_tehran: str | None
    schedule_missed: bool
    # Tracked button clicks (app.services.broadcast.reporting.clicks): recipients who clicked, and every click.
    # has_button: the copies carry a link button (an album or an unsend has none).
    has_button: bool = False
    # False: its links went out untracked (no PUBLIC_URL when it was made), so its clicks are unknown, not 0.
    clicks_counted: bool = True
    clicks: int = 0
    click_total: int = 0
    # Language variants: per variant ("default" first), its items by status; None for a job without variants.
    variants: dict | None = None
    # Sending rules: skipped by the daily cap (part of skipped), opted out by its button, urgent, paused by quiet hours.
    capped: int = 0
    unsubscribe_button: bool = False
    unsubscribed: int = 0
    urgent: bool = False
    quiet_paused: bool = False
    # A segment job: the segment it was sent to (None: a plain audience) and the segments left out, as created.
    segment: str | None = None
    exclude_segments: tuple[str, ...] = ()
    # A tag-on-tap button (app.services.audience.tap): its tag, verified presses and the users it tagged.
    tap: dict | None = None
    # A keyboard's buttons in reading order, each with its numbers (reporting/key_stats.KeyStat), as given.
    buttons: tuple | None = None
    # A paid job that started: our estimate and what its Stars balance fell by, in nanostars (spent None: not
    # known yet — a run still open, or its balance unread). app.services.broadcast.sending.stars.
    stars_estimate: int | None = None
    stars_spent: int | None = None

    @property
    def click_rate(self) -> float | None:
        """Recipients who clicked per delivered copy (0..1, 4 decimals); None before a delivery or when not counted."""
        return round(self.clicks / self.sent, 4) if self.sent and self.clicks_counted else None

    @property
    def is_action(self) -> bool:
        """True for an unsend or edit job."""
        return self.kind != KIND_SEND

    @property
    def finished_items(self) -> int:
        """Items in a final status (each final ItemStatus has the field of its name)."""
        return sum(getattr(self, status.value) for status in FINAL_STATUSES)

    @property
    def duration(self) -> float | None:
        """Seconds from start to finish, once the job has both."""
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None

    def as_dict(self) -> dict:
        """Return the JSON form the command line prints (`broadcast status`, `list --json`, pump reports)."""
        return {
            "id": self.id, "status": self.status, "audience": self.audience,
            "total": self.total, "sent": self.sent, "failed": self.failed,
            "skipped": self.skipped, "unknown": self.unknown, "pending": self.pending,
            "kind": self.kind, "source_job_id": self.source_job_id,
            "gone": self.gone, "too_old": self.too_old,
            "not_sent": self.not_sent,
            "rate": self.rate, "eta": self.eta, "pause_reason": self.pause_reason, "paid": self.paid,
            "langs": list(self.langs),
            "active_days": self.active_days, "joined_days": self.joined_days, "sources": list(self.sources),
            "silent": self.silent, "protect": self.protect,
            "created_at": _iso(self.created_at), "started_at": _iso(self.started_at),
            "finished_at": _iso(self.finished_at),
            "send_at": _iso(self.send_at), "send_at_tehran": self.send_at_tehran,
            "schedule_missed": self.schedule_missed,
            "clicks": self.clicks, "click_total": self.click_total, "click_rate": self.click_rate,
            "clicks_counted": self.clicks_counted,
            "frequency_capped": self.capped, "unsubscribe_button": self.unsubscribe_button,
            "unsubscribed": self.unsubscribed, "urgent": self.urgent,
            "quiet_paused": self.quiet_paused,
            "segment": self.segment, "exclude_segments": list(self.exclude_segments),
            **({"variants": self.variants} if self.variants is not None else {}),
            **({"tap": self.tap} if self.tap is not None else {}),
            **({"buttons": [b.as_dict() for b in self.buttons]} if self.buttons is not None else {}),
            **({"stars": {"spent": as_stars(self.stars_spent), "estimate": as_stars(self.stars_estimate)}}
               if self.stars_estimate is not None else {}),
        }


def job_status(job: BroadcastJob, now: datetime | None = None, *, variants: dict | None = None,
               buttons: tuple | None = None) -> JobView:
    """Return the view of a job: its counters with pending / not sent, rate and ETA as of now (the database's).

    variants: its items per language variant (app.services.broadcast.reporting.variant_stats), shown as given;
    buttons: its keyboard's numbers per button (app.services.broadcast.reporting.key_stats.of_job), likewise.
    """
    processed = job.processed_count
    unfinished = job.pending_count
    not_sent = unfinished if job.status == CANCELLED else 0
    pending = unfinished - not_sent
    rate = None
    eta = None
    if job.started_at:
        # started_at is the database's time: so is "now" (read only for a job still open), whatever this server's clock.
        end = job.finished_at or now or db_utcnow()
        elapsed = max((end - job.started_at).total_seconds(), 0.001)
        rate = round(processed / elapsed, 2) if processed else 0.0
        if pending and rate:
            eta = int(round(pending / rate))
    if not pending:
        eta = 0
    return JobView(
        id=job.id, status=job.status, audience=job.audience,
        total=job.total_count, sent=job.sent_count, failed=job.failed_count,
        skipped=job.skipped_count, unknown=job.unknown_count, pending=pending,
        kind=job.kind or KIND_SEND, source_job_id=job.source_job_id,
        gone=job.gone_count or 0, too_old=job.too_old_count or 0,
        not_sent=not_sent,
        rate=rate, eta=eta, pause_reason=job.pause_reason, paid=bool(job.paid),
        langs=tuple(job.audience_langs.split(",")) if job.audience_langs else (),
        active_days=job.audience_active_days, joined_days=job.audience_joined_days,
        sources=tuple(job.audience_sources.split(",")) if job.audience_sources else (),
        silent=bool(job.silent), protect=bool(job.protect),
        created_at=_second(job.created_at), started_at=_second(job.started_at),
        finished_at=_second(job.finished_at),
        send_at=_second(job.send_at), send_at_tehran=tehran_iso(job.send_at),
        schedule_missed=job.missed_at is not None,
        has_button=_has_link(job), clicks_counted=clicks_counted(job),
        clicks=job.clicks_unique or 0, click_total=job.clicks_total or 0,
        variants=variants, capped=job.capped_count or 0,
        unsubscribe_button=bool(job.optout_button) and job.kind == KIND_SEND, unsubscribed=job.unsubscribed_count or 0,
        urgent=bool(job.urgent), quiet_paused=job.status == PAUSED and job.pause_kind == QUIET_PAUSE,
        **_segments(job), **_stars(job),
        tap={"tag": job.tap_tag, "presses": job.tap_presses or 0, "tagged": job.tap_tagged or 0}
        if job.tap_tag else None,
        buttons=buttons,
    )


def _stars(job: BroadcastJob) -> dict:
    """Return a paid job's Stars: the estimate, and the spend once no run of it is open (none before it started)."""
    row = stars_repo.get(job.id) if job.paid else None
    if row is None:
        return {}
    return {"stars_estimate": row.estimate, "stars_spent": row.spent if row.opened_balance is None else None}


def _segments(job: BroadcastJob) -> dict:
    """Return the segment names a job's snapshot holds (none for a plain audience)."""
    if not job.audience_rule:
        return {}
    target = Target.from_json(job.audience_rule)
    return {"segment": target.segment, "exclude_segments": target.exclude_names}


@dataclass(frozen=True)
class Offers:
    """The after-send actions a job's view or summary shows: only those that would act now."""

    failed: int = 0      # a retry would reach these: Telegram refused their copy
    not_sent: int = 0    # ... and these: a cancel (or a pause) left them unsent
    unknown: int = 0     # offered apart: some may have got the message
    unsend: bool = False
    edit: bool = False
    pin: bool = False     # pin for everyone (nothing pinned now) / unpin (after a pin)
    unpin: bool = False
    expire: bool = False  # set, change or cancel the auto-delete (a send whose copies are not all past 48 h)

    @property
    def retry(self) -> int:
        """Recipients a plain retry (without the unknown) would reach."""
        return self.failed + self.not_sent

    @property
    def retry_key(self) -> str:
        """Name the retry button's text by whom it reaches: the failed, the never sent (cancelled), or both."""
        if self.failed and self.not_sent:
            return "btn_retry_both"
        return "btn_retry" if self.failed else "btn_retry_not_sent"


def retry_offer(status: JobView) -> Offers:
    """Return what a retry could reach per the job's counters (the summary right after a job ends).

    The view asks the ledger instead (app.services.broadcast.jobs.offers), which
    also leaves out users blocked since and users an earlier retry holds.
    """
    if status.status not in (COMPLETED, CANCELLED, PAUSED) or status.is_action:
        return Offers()  # an unsend or edit job is never "retried" as a send
    return Offers(failed=status.failed, not_sent=status.not_sent + status.pending, unknown=status.unknown)


def clicks_counted(job: BroadcastJob) -> bool:
    """Tell whether a job's clicks were counted: its links tracked (unknown for older jobs), or a click recorded."""
    return job.links_tracked is not False or bool(job.clicks_unique)


def _has_link(job: BroadcastJob) -> bool:
    """Tell whether the job's copies carry a tracked link (an album's only in its keyboard message)."""
    if job.kind == KIND_UNSEND:
        return False
    if job.keyboard:
        return bool(keyboard.url_positions(keyboard.load(job.keyboard)))
    return bool(job.button_url) and job.content_type != CONTENT_ALBUM
