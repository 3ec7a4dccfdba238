"""Broadcast jobs as admins see them: create, queue, cancel, pause, resume, purge."""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from datetime import datetime, timedelta

from sqlalchemy import select

from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import ACTION_KINDS, AUDIENCES, CONTENT_ALBUM, CONTENT_COPY, CONTENT_TEXT, DRAFT, BroadcastJob
from app.repository import broadcast_claims as claims
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_ledger as ledger
from app.repository import broadcast_population as population
from app.repository import broadcast_schedule as schedule_repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import audit
from app.services.broadcast import text_rules
from app.services.broadcast import variants as variants_service
from app.services.broadcast.button_url import url_problem
from app.services.broadcast.draft import Draft
from app.services.broadcast.send_time import check_future
from app.services.settings import load_settings
from app.texts import t

log = logging.getLogger(__name__)
ALBUM_MAX_PARTS = 10  # a Telegram album (media group) has at most 10 parts
# Purge never removes items younger than this: unsend and retry need them.
PURGE_FLOOR = timedelta(hours=48)
# Population and deletion work in chunks of this many users / items, one short transaction each.
# SQLite: 20,000 users hold its one write lock some 25-100 ms, so the webhook's writes go between.
POPULATE_CHUNK = 20_000
# MySQL: the population takes no lock the webhook waits for (see _let_writers_in), so a chunk only
# bounds one transaction's undo log; 100,000 users (about 1 s) make 10 statements of a million, not 50.
POPULATE_CHUNK_MYSQL = 100_000
DELETE_CHUNK = 5_000
SQLITE_CHUNK_PAUSE = 0.12  # seconds: longer than SQLite's longest busy-wait poll (100 ms)
# SQLite's default busy handler (busy_timeout) sleeps these milliseconds in turn, then 100 ms each time.
SQLITE_BUSY_SLEEPS_MS = (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100)
SQLITE_WAKE_MARGIN = 0.01  # seconds for a woken writer to be scheduled and take the lock
# A draft older than this is a population whose process died (a million users populate in seconds).
DRAFT_ABANDONED = timedelta(hours=1)


class EmptyAudience(ValueError):
    """The chosen audience has nobody in it."""


class CancelledWhilePreparing(ValueError):
    """The job was cancelled while its recipients were being added: it stays cancelled and sends nothing."""

    def __init__(self, job_id: int, total: int):
        super().__init__(f"job {job_id} was cancelled while it was being prepared; nothing was sent "
                         f"({total} recipients not sent)")
        self.job_id, self.total = job_id, total


def audience_counts() -> dict[str, int]:
    """Count each audience as it stands now (from stored columns only)."""
    counts = {aud: population.count_audience(aud) for aud in AUDIENCES}
    db.session.commit()
    return counts


def count_recipients(audience: Audience | str) -> int:
    """Count who an audience with its filters reaches now: the same WHERE population uses."""
    count = population.count_audience(audience)
    db.session.commit()
    return count


def variant_counts(audience: Audience | str, codes: list[str]) -> dict:
    """Count who gets each language variant now ({code or None: n}), with population's own WHERE and match."""
    counts = population.count_by_variant(audience, codes)
    db.session.commit()
    return counts


def _content_fields(content: dict) -> dict:
    """Validate the content description and return job columns."""
    kind = content.get("type")
    if kind == CONTENT_COPY:
        try:
            return {"content_type": CONTENT_COPY, "from_chat_id": int(content["from_chat_id"]),
                    "source_message_id": int(content["message_id"])}
        except (KeyError, TypeError, ValueError):
            raise ValueError("copy content needs integer from_chat_id and message_id") from None
    if kind == CONTENT_ALBUM:
        return _album_fields(content)
    if kind == CONTENT_TEXT:
        text = text_rules.check(content.get("text"))  # the HTML Telegram parses, measured as it shows
        return {"content_type": CONTENT_TEXT, "text": text, "parse_mode": content.get("parse_mode") or "HTML"}
    raise ValueError("content type must be 'copy', 'album' or 'text'")


def _album_fields(content: dict) -> dict:
    """Validate an album (1-10 distinct message ids of one chat) and return job columns, ids ascending."""
    try:
        from_chat_id = int(content["from_chat_id"])
        ids = sorted({int(i) for i in content["message_ids"]})
    except (KeyError, TypeError, ValueError):
        raise ValueError("album content needs an integer from_chat_id and a list of integer message_ids") from None
    if not 1 <= len(ids) <= ALBUM_MAX_PARTS or ids[0] < 1:
        raise ValueError(f"an album needs 1 to {ALBUM_MAX_PARTS} positive message ids")
    return {"content_type": CONTENT_ALBUM, "from_chat_id": from_chat_id, "source_message_id": ids[0],
            "source_message_ids": json.dumps(ids)}


def album_ids(job: BroadcastJob) -> list[int]:
    """Return an album job's message ids, ascending."""
    return json.loads(job.source_message_ids or "[]")


def create_job(*, audience: Audience | str, created_by: int | None, content: dict, button_text: str | None = None,
               button_url: str | None = None, settings: dict | None = None, progress_chat_id: int | None = None,
               lang: str = "fa", silent: bool = False, protect: bool = False, actor: str | None = None,
               action: str = audit.CREATED, send_at: datetime | None = None,
               variants: dict | None = None) -> BroadcastJob:
    """Create, populate and queue a job (running at once when no other job sends), or schedule it; audited.

    send_at (naive UTC) must lie ahead on the database's clock; the job then
    waits as 'scheduled' until cron releases it. variants: {language code:
    text or caption} (app.services.broadcast.variants); each item records
    the one its recipient gets.
    """
    if not isinstance(audience, Audience) and audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}")
    audience = Audience.of(audience)
    if bool(button_text) != bool(button_url):
        raise ValueError("a button needs both a text and a URL")
    if button_url and (problem := url_problem(button_url)):
        # Telegram would refuse every send of it: refused here, whoever creates the job.
        raise ValueError(f"button URL {button_url!r}: {t(problem, 'en', length=len(button_url))}")
    if send_at is not None:
        send_at = check_future(send_at, db_utcnow())
    fields = _content_fields(content)
    if fields["content_type"] == CONTENT_ALBUM and button_text:
        raise ValueError("an album carries no button (Telegram allows none)")
    checked = variants_service.check(variants or {}, fields["content_type"], fields.get("text"))
    variants_service.require_known_media(checked, content)
    now = db_utcnow()  # created_at is compared with the database's clock (the cron watch)
    job = insert_draft(settings, **audience.columns(), silent=bool(silent), protect=bool(protect),
                       created_by=created_by, button_text=button_text, button_url=button_url,
                       progress_chat_id=progress_chat_id, progress_lang=lang, created_at=now,
                       variants=variants_service.dump(checked), **fields)
    total = populate_in_chunks(job.id, audience, now, variants=checked)
    if total == 0:
        discard_draft(job.id)
        suffix = " after its filters" if audience.filtered else ""
        raise EmptyAudience(f"audience {audience.base!r} has no users{suffix}")
    detail = f"audience={audience} total={total}"
    if checked:
        detail += " variants=" + ",".join(checked)
    if send_at is not None:
        detail += f" send_at={send_at:%Y-%m-%dT%H:%M:%SZ}"
    queue_populated(job, total, actor, audit.SCHEDULED if send_at is not None else action, detail, send_at)
    log.info("broadcast job %s created: audience=%s total=%s status=%s send_at=%s", job.id, audience, total,
             job.status, job.send_at)
    return job


def populate_in_chunks(job_id: int, audience: Audience, now: datetime, chunk: int | None = None,
                       variants: Iterable[str] = ()) -> int:
    """Populate a committed draft job by user id ranges, one short transaction per chunk; return its exact total.

    Each chunk commits, so no statement holds SQLite's write lock (or MySQL's
    locks) for long and the webhook's writes go between chunks. The job stays
    a draft meanwhile: the pump only sends running jobs, and only
    queue_populated() (after the last chunk) lets it out of draft. If the
    population fails, its items and the draft go; if the process dies,
    discard_abandoned_drafts() (cron) removes them.
    """
    chunk = chunk or _populate_chunk()
    db.session.commit()  # the draft row on its own: each chunk's transaction stays short
    try:
        after = None
        while True:
            upto = population.user_id_after(after, chunk)
            started = time.monotonic()  # SQLite's write lock is taken by the INSERT, freed by the COMMIT
            population.populate(job_id, audience, now, variants, after=after, upto=upto, count=False)
            db.session.commit()
            if upto is None:
                break
            after = upto
            _let_writers_in(time.monotonic() - started)
        return population.count_items(job_id)  # once, exact: whatever a repeated chunk did
    except BaseException:
        db.session.rollback()
        discard_draft(job_id)
        raise


def _populate_chunk() -> int:
    """Users per population chunk on this database."""
    return POPULATE_CHUNK if db.engine.dialect.name == "sqlite" else POPULATE_CHUNK_MYSQL


def _let_writers_in(held: float | None = None) -> None:
    """On SQLite, leave the write lock free a moment between chunks so the webhook's waiting writers get it.

    SQLite's lock is not fair: a writer waiting on busy_timeout polls at
    growing intervals (up to 100 ms) and would keep missing a lock released
    and retaken at once. With held (seconds the lock was just held), the pause
    is the poll interval of a writer that waited that long, plus a margin:
    every writer that queued behind the chunk wakes within it. MySQL needs no
    pause: the population reads users as a consistent read (READ COMMITTED)
    and writes only item rows.
    """
    if db.engine.dialect.name != "sqlite":
        return
    time.sleep(SQLITE_CHUNK_PAUSE if held is None else sqlite_poll_interval(held) + SQLITE_WAKE_MARGIN)


def sqlite_poll_interval(waited: float) -> float:
    """Seconds between the polls of a writer that has waited `waited` s on SQLite's busy handler."""
    elapsed = 0
    for ms in SQLITE_BUSY_SLEEPS_MS:
        elapsed += ms
        if elapsed > waited * 1000:
            return ms / 1000
    return SQLITE_BUSY_SLEEPS_MS[-1] / 1000


def discard_draft(job_id: int, chunk: int | None = None) -> None:
    """Delete a draft job that never got queued: its items in short chunks, then the row."""
    chunk = chunk or DELETE_CHUNK
    while population.delete_some(job_id, chunk):
        db.session.commit()
        _let_writers_in()
    jobs_repo.delete_draft(job_id)
    db.session.commit()


def discard_abandoned_drafts(now: datetime | None = None) -> int:
    """Remove drafts whose population died with its process (older than DRAFT_ABANDONED); return how many."""
    now = now or db_utcnow()  # created_at is the database's time
    job_ids = jobs_repo.drafts_created_before(now - DRAFT_ABANDONED)
    db.session.commit()
    for job_id in job_ids:
        log.warning("broadcast job %s: a population that never finished is discarded", job_id)
        discard_draft(job_id)
    return len(job_ids)


def create_from_draft(draft: Draft, send_at: datetime | None = None, *, created_by: int | None,
                      settings: dict | None, lang: str, actor: str, progress_chat_id: int | None = None,
                      action: str = audit.CREATED) -> BroadcastJob:
    """Create the job a draft describes: sent now (send_at None), or scheduled for send_at (naive UTC).

    The wizard's confirm and schedule and the CLI's `broadcast create` all
    come here; action is audited for a job sent now (a scheduled one is
    audited as scheduled). Raises as create_job does.
    """
    return create_job(audience=draft.target, created_by=created_by, content=draft.content,
                      button_text=draft.button_text, button_url=draft.button_url, settings=settings,
                      progress_chat_id=progress_chat_id, lang=lang, silent=draft.silent, protect=draft.protect,
                      actor=actor, action=action, send_at=send_at, variants=draft.variants)


def insert_draft(settings: dict | None, **columns) -> BroadcastJob:
    """Add a draft job row (paid, opt-out button and batch size from the settings now) and flush it for its id."""
    settings = settings or load_settings()
    # copyMessages has no allow_paid_broadcast: an album always goes at the free rate.
    paid = bool(settings["broadcast_paid_enabled"]) and columns.get("content_type") != CONTENT_ALBUM
    # A retry or action copies its source's choice; albums cannot carry a keyboard (copyMessages takes none).
    optout = columns.pop("optout_button", None)
    if optout is None:
        optout = bool(settings["broadcast_optout_button"]) and columns.get("content_type") != CONTENT_ALBUM
    job = BroadcastJob(status=DRAFT, batch_size=settings["broadcast_batch_size"], paid=paid, optout_button=optout,
                       paid_limit=settings["broadcast_paid_max_messages"] if paid else None, **columns)
    db.session.add(job)
    db.session.flush()
    return job


def set_paid(job: BroadcastJob, paid: bool, settings: dict | None = None) -> None:
    """Set a draft's paid flag as the admin confirmed it (never for an album), with the cap that goes with it."""
    settings = settings or load_settings()
    job.paid = bool(paid) and job.content_type != CONTENT_ALBUM
    job.paid_limit = settings["broadcast_paid_max_messages"] if job.paid else None


def queue_populated(job: BroadcastJob, total: int, actor: str | None, action: str, detail: str,
                    send_at: datetime | None = None) -> None:
    """Record the total, queue (or schedule) the draft with its audit entry, commit, and start it if no job sends.

    A draft cancelled during its population stays cancelled: its total is
    recorded (its items all count as not sent) and CancelledWhilePreparing
    tells the creator; nothing is queued, so nothing is ever sent.
    """
    jobs_repo.set_total(job.id, total)
    if send_at is not None:
        queued = schedule_repo.schedule_draft(job.id, send_at)
    else:
        queued = jobs_repo.queue_draft(job.id)
    if not queued:
        db.session.commit()  # the total: a cancelled job's counters add up to its items
        log.warning("broadcast job %s was cancelled during its population; not queued", job.id)
        raise CancelledWhilePreparing(job.id, total)
    audit.record(actor, action, job.id, detail)
    db.session.commit()
    start_next_if_idle()
    db.session.refresh(job)


def start_next_if_idle() -> int | None:
    """Promote the oldest queued job when no job holds the active slot."""
    return in_transaction(_promote_next_if_idle)


def _promote_next_if_idle() -> int | None:
    """The promotion's transaction: the oldest queued job takes the free slot (None if none did)."""
    if jobs_repo.running_job_id() is not None:
        return None
    job_id = jobs_repo.oldest_queued_job_id()
    if job_id is None or not jobs_repo.promote(job_id, db_utcnow()):
        return None
    return job_id


def get_job(job_id: int) -> BroadcastJob | None:
    """Return a job by id."""
    return db.session.get(BroadcastJob, job_id)


def list_jobs(limit: int = 20) -> list[BroadcastJob]:
    """Return the newest jobs first."""
    return list(db.session.execute(select(BroadcastJob).order_by(BroadcastJob.id.desc()).limit(limit)).scalars())


def cancel_job(job_id: int, actor: str | None = None) -> bool:
    """Cancel now; in-flight sends finish and record, no new batch is claimed."""
    def cancel() -> bool:
        ok = jobs_repo.cancel(job_id, db_utcnow())
        if ok:
            audit.record(actor, audit.CANCELLED, job_id)
        return ok

    ok = in_transaction(cancel)
    if ok:
        start_next_if_idle()
    return ok


def pause_job(job_id: int, reason: str | None = None, actor: str | None = None) -> bool:
    """Pause a running or queued job, letting the next queued job run."""
    reason = reason or "paused by an admin"

    def pause() -> bool:
        ok = jobs_repo.pause(job_id, reason)
        if ok:
            audit.record(actor, audit.PAUSED, job_id, reason)
        return ok

    ok = in_transaction(pause)
    if ok:
        start_next_if_idle()
    return ok


def resume_job(job_id: int, actor: str | None = None) -> str | None:
    """Resume a paused job: running if the slot is free, else queued. None if not paused."""
    def resume() -> str | None:
        # resume() runs first in its transaction: a lost slot race rolls it back.
        new_status = jobs_repo.resume(job_id)
        if new_status:
            audit.record(actor, audit.RESUMED, job_id, new_status)
        return new_status

    return in_transaction(resume)


def set_progress_message(job_id: int, chat_id: int, message_id: int) -> None:
    """Point the job at the admin's progress message."""
    job = db.session.get(BroadcastJob, job_id)
    job.progress_chat_id, job.progress_message_id = chat_id, message_id
    db.session.commit()


def expire_orphans(job_id: int, now: datetime) -> int:
    """Count items a dead pump left in flight as unknown, settled now (caller holds the job row and commits)."""
    job = db.session.get(BroadcastJob, job_id)
    if job is not None and job.kind in ACTION_KINDS:
        # A delete or an edit is safe to repeat: back to pending, done again by the next pump.
        n = claims.expire_orphans(job_id, redo=True)
        if n:
            log.warning("job %s: %s actions left in flight by a stopped pump go again", job_id, n)
        return n
    n = claims.expire_orphans(job_id, now=now)
    if n:
        jobs_repo.add_counts(job_id, unknown=n)
        log.warning("job %s: %s items left in flight by a stopped pump are now 'unknown'", job_id, n)
    return n


def expire_stopped_orphans() -> int:
    """Expire in-flight items of cancelled/paused jobs whose pump died (cron runs this).

    acquire_lease() only runs for running jobs, so without this a job that
    was cancelled or paused after its pump died would keep 'sending' items
    forever and counters that never add up.
    """
    now = db_utcnow()
    job_ids = jobs_repo.stopped_with_orphans(now)
    db.session.commit()
    total = 0
    for job_id in job_ids:
        total += in_transaction(lambda job_id=job_id: expire_orphans(job_id, now)
                                if jobs_repo.claim_dead_lease(job_id, now) else 0)
    return total


def purge_items(older_than_days: int, now: datetime | None = None, max_items: int | None = None) -> dict:
    """Delete items of jobs finished more than N days (and at least 48 hours) ago; job rows and counters stay.

    Items younger than PURGE_FLOOR are always kept: unsend and retry read them.
    The items go DELETE_CHUNK at a time, each chunk its own short transaction,
    so a pump sending meanwhile is never held up; max_items bounds one call
    (cron's slice), the next call carries on. Returns what was removed:
    {"items": n, "jobs": {job id: items removed}, "before": cutoff, "done": nothing left to remove}.
    """
    if older_than_days < 0:
        raise ValueError("older_than_days must be >= 0")
    now = now or db_utcnow()
    before = min(now - timedelta(days=older_than_days), now - PURGE_FLOOR)
    removed: dict[int, int] = {}
    left = max_items
    job_ids = ledger.purgeable_jobs(before)
    db.session.commit()
    for job_id in job_ids:
        while left is None or left > 0:
            n = ledger.delete_finished_some(job_id, before, DELETE_CHUNK if left is None else min(DELETE_CHUNK, left))
            db.session.commit()
            if not n:
                break
            removed[job_id] = removed.get(job_id, 0) + n
            left = None if left is None else left - n
            _let_writers_in()
        if left == 0:
            break
    done = left is None or left > 0
    return {"items": sum(removed.values()), "jobs": removed, "before": before, "done": done}
