"""Recurring broadcasts at cron time: each occurrence that has come makes its own job, once.

Making an occurrence is one transaction: the guarded UPDATE that moves the
series' next_at past it (app.repository.recurring.advance), the occurrence's
row (keyed series + time) and the job's draft row. So two cron calls make one
job, and a process killed anywhere leaves either all three or none. The job's
recipients are then added in chunks as for any job; a process that dies there
leaves a draft that the next cron call, STUCK_AFTER later, finishes (adding
recipients is idempotent, draft -> queued is guarded).
"""
from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta

from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import BroadcastJob
from app.models.recurring import EMPTY, MADE, SKIPPED
from app.models.segment_rule import Target
from app.repository import recurring as repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import audit
from app.services.audience import segments
from app.services.broadcast.content import variants as variants_service
from app.services.broadcast.jobs import creation, job_audience
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.population import discard_draft, populate_in_chunks
from app.services.broadcast.schedule.occurrences import Release, Series, plan
from app.services.broadcast.schedule.recurrence import parse_rule
from app.services.broadcast.schedule.releases import grace

log = logging.getLogger(__name__)
# A draft an occurrence made this long ago lost its process (a million recipients take seconds).
STUCK_AFTER = timedelta(minutes=5)
# Audit actions of a series (its job_id column stays empty; the detail names the series).
CREATED, PAUSED, RESUMED, STOPPED = "recurring_created", "recurring_paused", "recurring_resumed", "recurring_stopped"


def series_of(row) -> Series:
    """Return a stored series' rule with its end and count."""
    return Series(parse_rule(row.rule), row.until_at, row.count_limit)


def release_due(settings: dict, *, now: datetime | None = None) -> list[int]:
    """Make the job of every occurrence that has come (or skip it, as its series says); return the jobs made.

    now (naive UTC) is the database's clock unless a test passes its own.
    A series that fails is logged and left for the next call: one bad row
    never stops cron's pump.
    """
    now = now or db_utcnow()
    made = []
    due = repo.due(now)
    db.session.commit()
    for series_id, occurrence in due:
        try:
            job_id = release(series_id, occurrence, now, settings)
        except Exception:
            db.session.rollback()
            log.exception("recurring broadcast %s: its occurrence at %s could not be made", series_id, occurrence)
            continue
        if job_id is not None:
            made.append(job_id)
    finish_stuck(now)
    return made


def release(series_id: int, occurrence: datetime, now: datetime, settings: dict) -> int | None:
    """Release one due occurrence of a series; return its job's id (None: skipped, empty, or another caller won)."""
    row = repo.get(series_id)
    if row is None:
        db.session.commit()
        return None
    series, done, if_missed = series_of(row), row.occurrences, row.if_missed
    draft, created_by, lang = Draft.from_json(json.loads(row.draft)), row.created_by, row.lang
    try:
        audience = series_audience(row, draft)
    except segments.SegmentMissing as exc:
        db.session.rollback()
        _pause_orphan(series_id, str(exc))
        return None
    db.session.commit()
    decided = plan(series, occurrence, done, now, if_missed, grace(settings))

    def claim() -> int | None:
        if not repo.advance(series_id, occurrence, decided.next_at, decided.occurrences, int(bool(decided.send))):
            return None  # another cron call made this occurrence, or the series was paused or stopped
        job_id = _insert_job(draft, audience, created_by, lang, now, settings) if decided.send else None
        repo.record(series_id, _rows(decided, job_id), now)
        return job_id

    job_id = in_transaction(claim)
    _log(series_id, decided, job_id)
    if job_id is None:
        return None
    return fill(series_id, decided.send, job_id, draft)


def series_audience(row, draft: Draft) -> Audience | Target:
    """Return whom a series' occurrences send to: its segment snapshot, else its draft's plain audience.

    A series stored before it kept a snapshot (audience_rule NULL) whose
    draft names segments resolves them now, rather than send to everyone.
    """
    if row.audience_rule:
        return Target.from_json(row.audience_rule)
    return segments.of_draft(draft)


def _rows(decided: Release, job_id: int | None) -> list[tuple[datetime, str, int | None]]:
    """Return the occurrence rows a release records: the skipped ones, then the one made."""
    rows = [(at, SKIPPED, None) for at in decided.skipped]
    if decided.send is not None and job_id is not None:
        rows.append((decided.send, MADE, job_id))
    return rows


def _log(series_id: int, decided: Release, job_id: int | None) -> None:
    """Say what a release did when it skipped something or ended the series."""
    if decided.skipped_total:
        log.warning("recurring broadcast %s: %s missed occurrence(s) skipped (cron was down); sent: %s",
                    series_id, decided.skipped_total, decided.send or "none")
    if job_id is not None and decided.next_at is None:
        log.info("recurring broadcast %s made its last occurrence", series_id)


def _pause_orphan(series_id: int, why: str) -> None:
    """Pause a series stored without a snapshot whose segment is gone: sending to everyone instead is no answer."""
    if repo.pause(series_id):
        audit.record(audit.ACTOR_CRON, PAUSED, None, f"recurring=#{series_id} {why}")
        log.error("recurring broadcast %s paused: %s (stop it, and create it again with a segment)", series_id, why)
    db.session.commit()


def _insert_job(draft: Draft, audience: Audience | Target, created_by: int | None, lang: str, now: datetime,
                settings: dict) -> int:
    """Add the occurrence's draft job row (never paid: nobody confirms its cost) and return its id."""
    _, columns, _ = draft_columns(draft, audience, now)
    job = creation.insert_draft({**settings, "broadcast_paid_enabled": False}, **columns, created_by=created_by,
                                progress_chat_id=None, progress_lang=lang, created_at=now)
    return job.id


def draft_columns(draft: Draft, audience: Audience | Target, first_copy: datetime) -> tuple:
    """Return creation.send_columns of a series' draft: every option it was given (urgent, buttons, expiry)."""
    after = None if draft.expire_after is None else timedelta(seconds=draft.expire_after)
    return creation.send_columns(audience, draft.content, button_text=draft.button_text, button_url=draft.button_url,
                                 variants=draft.variants, optout_button=draft.unsubscribe, tap=draft.tap,
                                 keyboard=draft.keyboard, silent=draft.silent, protect=draft.protect,
                                 urgent=draft.urgent, expire_after=after, first_copy=first_copy)


def fill(series_id: int, occurrence: datetime, job_id: int, draft: Draft) -> int | None:
    """Add the job's recipients and queue it; an empty audience records the occurrence as empty, with no job."""
    job = db.session.get(BroadcastJob, job_id)
    created_at = job.created_at if job is not None else None
    audience = job_audience.audience_of(job) if job is not None else None  # the row's own snapshot
    db.session.commit()
    if created_at is None:  # discarded meanwhile (housekeeping's abandoned drafts): nothing to finish
        return None
    checked = variants_service.check(draft.variants or {}, draft.content_type, (draft.content or {}).get("text"))
    total = populate_in_chunks(job_id, audience, created_at, variants=checked)
    if total == 0:
        discard_draft(job_id)
        in_transaction(lambda: (repo.set_outcome(series_id, occurrence, EMPTY), repo.uncount_made(series_id)))
        log.info("recurring broadcast %s: nobody in its audience at %s; nothing sent", series_id, occurrence)
        return None
    job = db.session.get(BroadcastJob, job_id)
    detail = (f"recurring=#{series_id} occurrence={occurrence:%Y-%m-%dT%H:%M:%SZ} audience={audience} total={total}"
              + creation.options_detail(job))
    try:
        creation.queue_populated(job, total, audit.ACTOR_CRON, audit.CREATED, detail)
    except creation.CancelledWhilePreparing:
        return None  # cancelled by an admin while its recipients were added, or already queued by another caller
    log.info("recurring broadcast %s: job %s made for %s (%s recipients)", series_id, job_id, occurrence, total)
    return job_id


def finish_stuck(now: datetime) -> list[int]:
    """Finish occurrences whose process died while adding recipients (their job still a draft); return the jobs."""
    stuck = repo.stuck_drafts(now - STUCK_AFTER)
    drafts = {}
    for series_id, _at, _job in stuck:
        row = repo.get(series_id)
        drafts[series_id] = Draft.from_json(json.loads(row.draft))
    db.session.commit()
    finished = []
    for series_id, occurrence, job_id in stuck:
        log.warning("recurring broadcast %s: job %s was left a draft by a dead process; finishing it",
                    series_id, job_id)
        if fill(series_id, occurrence, job_id, drafts[series_id]) is not None:
            finished.append(job_id)
    return finished
