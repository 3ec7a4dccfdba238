"""Create a broadcast job: check its content, count its audience, insert and queue the draft."""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from app.extensions import db
from app.models.audience import Audience
from app.models.broadcast import (
    AUDIENCES,
    CONTENT_ALBUM,
    DRAFT,
    KIND_EDIT,
    KIND_SEND,
    BroadcastJob,
)
from app.models.segment_rule import Target
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_population as population
from app.repository import broadcast_schedule as schedule_repo
from app.repository import buttons as buttons_repo
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.audience import segments
from app.services.audience import tap as tap_button
from app.services.broadcast.content import ab_content, placeholders
from app.services.broadcast.content import keyboard as keyboards
from app.services.broadcast.content import variants as variants_service
from app.services.broadcast.content.button_url import url_problem
from app.services.broadcast.jobs.content_columns import content_fields
from app.services.broadcast.jobs.control import start_next_if_idle
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.jobs.expiry_time import expiry_columns, format_after
from app.services.broadcast.jobs.population import discard_draft, populate_in_chunks
from app.services.broadcast.reporting import clicks
from app.services.broadcast.schedule.send_time import check_future
from app.services.settings import load_settings
from app.texts import t

log = logging.getLogger(__name__)


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


def check_content(audience: Audience | Target | str, content: dict, button_text: str | None, button_url: str | None,
                  variants: dict | None, optout_button: bool | None = None,
                  tap: dict | None = None, keyboard: dict | None = None) -> tuple[Audience | Target, dict, dict]:
    """Refuse what Telegram would refuse (ValueError); return the audience, the content's job columns, the variants.

    A keyboard takes the single link and tap buttons in as its first rows: the
    columns then hold the keyboard alone (create_job drops the link's).
    """
    if not isinstance(audience, Audience | Target) and audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}")
    kb = keyboards.fold(keyboard, button_text, button_url, tap) if keyboard else None
    if kb:
        button_text = button_url = tap = None
    if bool(button_text) != bool(button_url):
        raise ValueError("a button needs both a text and a URL")
    if button_url and (problem := url_problem(button_url)):
        # Telegram would refuse every send of it: refused here, whoever creates the job.
        raise ValueError(f"button URL {button_url!r}: {t(problem, 'en', length=len(button_url))}")
    placeholders.fixed(button_text, "link")  # its label goes to every user as typed
    fields = content_fields(content)
    if fields["content_type"] == CONTENT_ALBUM and (button_text or optout_button):
        raise ValueError("an album carries no button (Telegram allows none): users unsubscribe with /stop")
    fields.update(tap_button.check_tap(tap, fields["content_type"]))
    if kb:
        fields["keyboard"] = keyboards.dump(kb)
    checked = variants_service.check(variants or {}, fields["content_type"], fields.get("text"))
    variants_service.require_known_media(checked, content)
    return (audience if isinstance(audience, Target) else Audience.of(audience)), fields, checked


def create_job(*, audience: Audience | Target | str, created_by: int | None, content: dict,
               button_text: str | None = None, button_url: str | None = None, settings: dict | None = None,
               progress_chat_id: int | None = None, lang: str = "fa", silent: bool = False, protect: bool = False,
               actor: str | None = None, action: str = audit.CREATED, send_at: datetime | None = None,
               variants: dict | None = None, urgent: bool = False,
               optout_button: bool | None = None, tap: dict | None = None,
               expire_after: timedelta | None = None, keyboard: dict | None = None) -> BroadcastJob:
    """Create, populate and queue a job (running at once when no other job sends), or schedule it; audited.

    send_at (naive UTC) must lie ahead on the database's clock; the job then
    waits as 'scheduled' until cron releases it. variants: {language code:
    text or caption} (app.services.broadcast.content.variants); each item records
    the one its recipient gets. urgent: sent through quiet hours; optout_button:
    the unsubscribe button under each copy (None: the setting broadcast_optout_button).
    tap: {"text", "tag", "answer"}, a tag-on-tap button; keyboard: rows of
    buttons (content/keyboard.py). A Target (a segment, exclusions) is
    stored whole on the job: population runs now, from this copy.
    expire_after: auto-expiry's T (1 min to 47 h), written in the row's own
    insert, so the job is never queued without it.
    """
    if send_at is not None:
        send_at = check_future(send_at, db_utcnow())
    now = db_utcnow()  # created_at is compared with the database's clock (the cron watch)
    audience, columns, checked = send_columns(
        audience, content, button_text=button_text, button_url=button_url, variants=variants,
        optout_button=optout_button, tap=tap, keyboard=keyboard, silent=silent, protect=protect, urgent=urgent,
        expire_after=expire_after, first_copy=send_at or now)
    job = insert_draft(settings, **columns, created_by=created_by, progress_chat_id=progress_chat_id,
                       progress_lang=lang, created_at=now)
    total = populate_in_chunks(job.id, audience, now, variants=checked)
    if total == 0:
        discard_draft(job.id)
        raise EmptyAudience(_empty_text(audience))
    detail = f"audience={audience} total={total}"
    if checked:
        detail += " variants=" + ",".join(checked)
    if send_at is not None:
        detail += f" send_at={send_at:%Y-%m-%dT%H:%M:%SZ}"
    detail += options_detail(job)
    queue_populated(job, total, actor, audit.SCHEDULED if send_at is not None else action, detail, send_at)
    log.info("broadcast job %s created: audience=%s total=%s status=%s send_at=%s", job.id, audience, total,
             job.status, job.send_at)
    return job


def send_columns(audience: Audience | Target | str, content: dict, *, button_text: str | None,
                 button_url: str | None, variants: dict | None, optout_button: bool | None, tap: dict | None,
                 keyboard: dict | None, silent: bool, protect: bool, urgent: bool, expire_after: timedelta | None,
                 first_copy: datetime) -> tuple[Audience | Target, dict, dict]:
    """Check a send job's content and options (ValueError) and return its audience, its row's columns, its variants.

    create_job and a recurring broadcast's occurrences build their rows here,
    so an occurrence carries every option its series was given.
    """
    audience, fields, checked = check_content(audience, content, button_text, button_url, variants, optout_button,
                                              tap, keyboard)
    # A keyboard holds the link button now (check_content).
    button_text, button_url = (None, None) if "keyboard" in fields else (button_text, button_url)
    columns = {**_audience_columns(audience), **expiry_columns(expire_after, first_copy)}  # ValueError past 47 h
    return audience, {**columns, **fields, "silent": bool(silent), "protect": bool(protect), "urgent": bool(urgent),
                      "button_text": button_text, "button_url": button_url, "optout_button": optout_button,
                      "variants": variants_service.dump(checked)}, checked


def options_detail(job: BroadcastJob) -> str:
    """Return the audit detail's words for a new job's options: urgent, unsubscribe button, auto-expiry."""
    detail = " urgent" * bool(job.urgent) + " unsubscribe_button" * bool(job.optout_button)
    if job.expire_after is not None:
        detail += f" expire_after={format_after(job.expire_after)}"
    return detail


def _audience_columns(audience: Audience | Target | str) -> dict:
    """Return the job's audience columns: a Target's base audience, and the Target itself as its snapshot."""
    if isinstance(audience, Target):
        return {**audience.include.audience.columns(), "audience_rule": audience.to_json()}
    return Audience.of(audience).columns()


audience_columns = _audience_columns  # an A/B test's job and its winner store their audience the same way


def _empty_text(audience: Audience | Target) -> str:
    """Say whose audience has nobody in it, in the operator's terms."""
    if isinstance(audience, Target):
        name = f"segment {audience.segment!r}" if audience.segment else f"audience {audience.include.audience.base!r}"
        return f"{name} has no users" + (" after its exclusions" if audience.excludes else "")
    suffix = " after its filters" if audience.filtered else ""
    return f"audience {audience.base!r} has no users{suffix}"


def create_from_draft(draft: Draft, send_at: datetime | None = None, *, created_by: int | None,
                      settings: dict | None, lang: str, actor: str, progress_chat_id: int | None = None,
                      action: str = audit.CREATED) -> BroadcastJob:
    """Create the job a draft describes: sent now (send_at None), or scheduled for send_at (naive UTC).

    The wizard's confirm and schedule and the CLI's `broadcast create` all
    come here; action is audited for a job sent now (a scheduled one is
    audited as scheduled). Raises as create_job does.
    """
    return create_job(audience=segments.of_draft(draft), created_by=created_by, content=draft.content,
                      button_text=draft.button_text, button_url=draft.button_url, settings=settings,
                      progress_chat_id=progress_chat_id, lang=lang, silent=draft.silent, protect=draft.protect,
                      actor=actor, action=action, send_at=send_at, variants=draft.variants, urgent=draft.urgent,
                      optout_button=draft.unsubscribe, tap=draft.tap, keyboard=draft.keyboard,
                      expire_after=None if draft.expire_after is None else timedelta(seconds=draft.expire_after))


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
    job.links_tracked = clicks.tracked(job)  # this process's PUBLIC_URL: the one its links are built with
    db.session.add(job)
    db.session.flush()
    # A keyboard's counters, one row per button, in the job's own transaction (clicks and presses only UPDATE).
    if job.kind in (None, KIND_SEND, KIND_EDIT):  # the jobs whose copies carry it (an edit's links are its own)
        buttons_repo.add_rows(job.id, [pos for pos, _ in keyboards.buttons(keyboards.load(job.keyboard))])
        for letter, kb in ab_content.own_keyboards(job):  # an A/B version's own buttons count on rows of their own
            buttons_repo.add_rows(job.id, [pos for pos, _ in keyboards.buttons(kb)], letter)
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
