"""Unsend or edit a finished broadcast: an action job over its ledger, run by the same pump.

An action job is a new job row (kind 'unsend' or 'edit', source_job_id) whose
items are the source's sent items with their message_id, copied in one
INSERT ... SELECT (app.repository.broadcast_population.populate_action). It then
queues like any job, so lease, fence, budget, progress, pause/cancel and crash
safety are the pump's. A source still queued, running, paused or scheduled is
refused (cancel or wait for it first); so is an unsend once every copy is
older than Telegram's 48 hours.

An action covers the broadcast and its retries (app.services.broadcast.actions.lineage),
and starts only once all of them have ended, none has a send still in flight
(a cancel lets those finish; their copies must be there to act on), none
was given up on so lately that it may still land (app.services.broadcast.sending.landing),
and no other unsend or edit of the chain is open: one action at a time. Copies an
earlier unsend deleted (or found gone) are left out, so nothing is deleted or
edited twice.
"""
from __future__ import annotations

import logging
import math
from datetime import timedelta

from app.extensions import db
from app.models.broadcast import (
    ACTION_KINDS,
    CONTENT_ALBUM,
    CONTENT_COPY,
    CONTENT_TEXT,
    KIND_EDIT,
    KIND_SEND,
    KIND_UNSEND,
    UNKNOWN,
    BroadcastJob,
)
from app.repository import broadcast_jobs as jobs_repo
from app.repository import broadcast_ledger as ledger
from app.repository import broadcast_population as population
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.actions import lineage
from app.services.broadcast.content import text_rules
from app.services.broadcast.content import variants as variants_service
from app.services.broadcast.jobs import creation, purge
from app.services.broadcast.sending import landing

log = logging.getLogger(__name__)
# Telegram lets a bot delete its messages in private chats for this long.
DELETE_WINDOW = timedelta(hours=48)
# The columns an action job copies from its source: what was sent, so the pump knows how to act on it.
COPIED = ("audience", "audience_langs", "audience_active_days", "audience_joined_days", "audience_sources",
          "audience_rule",
          "content_type", "from_chat_id", "source_message_id", "source_message_ids", "parse_mode", "button_text",
          "button_url", "optout_button", "tap_text", "tap_tag", "tap_answer", "keyboard")


class NotActionable(ValueError):
    """The job cannot be unsent or edited now; key and values name the admin's text (the message is English)."""

    def __init__(self, message: str, key: str = "act_nothing", **values):
        super().__init__(message)
        self.key, self.values = key, values


def unsend_job(job_id: int, *, actor: str | None = None, created_by: int | None = None,
               progress_chat_id: int | None = None, lang: str = "fa", settings: dict | None = None) -> BroadcastJob:
    """Create and queue the job that deletes every delivered copy of a finished broadcast; return it."""
    return _create(job_id, KIND_UNSEND, None, actor, created_by, progress_chat_id, lang, settings)


def edit_job(job_id: int, text: str | None, *, actor: str | None = None, created_by: int | None = None,
             progress_chat_id: int | None = None, lang: str = "fa", settings: dict | None = None,
             variants: dict | None = None) -> BroadcastJob:
    """Create and queue the job that replaces the text (or caption) of every delivered copy; return it.

    A broadcast with language variants is edited per variant: text replaces
    the default's copies, variants {code: text} those of each variant named;
    copies of a variant not given keep their text, so one language's words
    never land on another's copies.
    """
    return _create(job_id, KIND_EDIT, text, actor, created_by, progress_chat_id, lang, settings, variants or {})


def edit_limit(source: BroadcastJob) -> int:
    """Return the longest new text an edit of this job takes (a caption for media, else a text)."""
    return text_rules.TEXT_LIMIT if source.content_type == CONTENT_TEXT else text_rules.CAPTION_LIMIT


def check_source(source: BroadcastJob | None, kind: str, now=None) -> int:
    """Raise NotActionable unless the job can be unsent / edited now; return the copies it would act on.

    Read-only, for buttons and the CLI; _create runs it again under the chain's lock.
    """
    if source is None:
        raise NotActionable("no such broadcast job", "cb_unknown_job")
    if source.kind != KIND_SEND:
        raise NotActionable(f"job {source.id} is itself an {source.kind} job", "act_is_action", id=source.id)
    scope = lineage.family(source.id)
    busy = lineage.unfinished(scope)
    if busy is not None and busy[0] == source.id:
        raise NotActionable(f"job {source.id} is {busy[1]}; only a completed or cancelled job can be unsent or edited "
                            f"(wait for it, or cancel it first)", "act_not_finished", id=source.id)
    if busy is not None:
        raise NotActionable(f"job {busy[0]}, a retry of job {source.id}, is {busy[1]}; an unsend or edit covers the "
                            f"retries too (wait for it, or cancel it first)", "act_retry_busy", id=source.id,
                            retry=busy[0])
    above = scope + lineage.ancestors(source.id)
    running = jobs_repo.actions_on(above)
    if running:
        other, other_kind, state = running[0]
        raise NotActionable(f"job {other} already {other_kind}s this broadcast ({state}); wait for it, or cancel it "
                            f"first", f"act_busy_{other_kind}", id=source.id, job=other)
    flying = ledger.in_flight(scope)
    if flying:
        raise NotActionable(f"job {source.id} still has {flying} copies on their way (in flight); try again in a few "
                            f"seconds, once they are recorded", "act_in_flight", id=source.id, n=flying)
    now = now or db_utcnow()
    since = landing.open_since(now)
    arriving, newest = ledger.unknown_since(scope, since)
    if arriving:
        wait = max(1, math.ceil((newest - since).total_seconds()))
        raise NotActionable(f"job {source.id} gave up on Telegram's answer for {arriving} copies less than "
                            f"{int(landing.LANDING_WINDOW.total_seconds())} s ago and they may still arrive; "
                            f"try again in {wait} s", "act_landing", id=source.id, n=arriving, s=wait)
    deleted = [row[0] for row in jobs_repo.actions_on(above, KIND_UNSEND, open_only=False)]
    count, newest = population.sent_window(scope, deleted)
    if count == 0 and deleted:
        raise NotActionable(f"every copy of job {source.id} was already deleted (job {deleted[-1]})",
                            "act_all_deleted", id=source.id, job=deleted[-1])
    if count == 0:
        raise NotActionable(f"job {source.id} has no delivered copy with a known message id", "act_nothing",
                            id=source.id)
    if kind == KIND_UNSEND and newest is not None and newest < now - DELETE_WINDOW:
        raise NotActionable(f"every copy of job {source.id} is older than 48 hours: Telegram no longer "
                            f"lets the bot delete them", "act_too_old", id=source.id)
    return count


def covered(source_id: int) -> tuple[list[int], list[int]]:
    """Return (the broadcast and its retries, the unsend jobs that already deleted some of their copies)."""
    scope = lineage.family(source_id)
    above = scope + lineage.ancestors(source_id)
    return scope, [row[0] for row in jobs_repo.actions_on(above, KIND_UNSEND, open_only=False)]


def unreachable(source_id: int) -> int:
    """Count the copies of a broadcast (its retries included) no action can reach: their answer was lost.

    An unknown copy may have arrived, but without Telegram's answer the bot
    never learnt its message id, and Telegram deletes or edits only by id.
    """
    n = ledger.count_status(lineage.family(source_id), UNKNOWN)
    db.session.commit()
    return n


def copies_per_variant(job_id: int) -> dict[str | None, int]:
    """Count a broadcast's copies still there per language variant ({code or None: n}), its retries included."""
    counts = population.copies_by_variant(*covered(job_id))
    db.session.commit()
    return counts


def _check_text(source: BroadcastJob, text: str | None) -> str:
    """Return the edit's new text stripped, or raise TextRefused as Telegram would refuse it (HTML, length)."""
    return text_rules.check(text, edit_limit(source), "new text")


def edit_scope(source: BroadcastJob, text: str | None, new_variants: dict) -> tuple[str | None, dict, list | None]:
    """Check an edit's texts against its source; return (default text, {code: text}, variants it covers or None).

    A source without variants takes one text for every copy (covers None:
    all). A source with variants takes a text per variant edited; naming a
    variant it does not have, or giving nothing, is refused.
    """
    if source.ab_state is not None:  # each version has its own text: one new text would make them alike
        raise NotActionable(f"job {source.id} is an A/B test: its versions cannot take one new text", "act_ab_edit",
                            id=source.id)
    have = variants_service.of(source)
    if new_variants and not have:
        raise NotActionable(f"job {source.id} has no language variants; edit it with --text alone",
                            "act_no_variants", id=source.id)
    checked = {}
    for raw, new in new_variants.items():
        code = variants_service.normalise_code(raw)
        if code not in have:
            raise NotActionable(f"job {source.id} has no {code} variant (its variants: {', '.join(have)})",
                                "act_no_such_variant", id=source.id, code=code, have=", ".join(have))
        checked[code] = text_rules.check(new, edit_limit(source), f"new {code} text")
    default = _check_text(source, text) if text is not None or not checked else None
    if not have:
        return default, {}, None
    return default, checked, ([None] if default is not None else []) + list(checked)


def _create(job_id: int, kind: str, text: str | None, actor: str | None, created_by: int | None,
            progress_chat_id: int | None, lang: str, settings: dict | None,
            new_variants: dict | None = None) -> BroadcastJob:
    """Lock the chain, check it, copy the copies still there into a new action job and queue it."""
    db.session.rollback()
    purge.expire_stopped_orphans()  # a dead pump's in-flight sends are settled first (as cron does)
    # The lock below must be this transaction's first statement; it serialises
    # every action and retry of the chain, so the checks hold until commit.
    locked = lineage.lock(job_id)
    source = db.session.get(BroadcastJob, job_id)
    try:
        if not locked or source is None:
            raise NotActionable(f"no broadcast job {job_id}", "cb_unknown_job")
        check_source(source, kind)
        edited, scope = {}, None
        if kind == KIND_EDIT:
            if source.content_type not in (CONTENT_TEXT, CONTENT_COPY, CONTENT_ALBUM):
                raise NotActionable(f"job {job_id} has no text or caption to edit", "act_nothing", id=job_id)
            text, edited, scope = edit_scope(source, text, new_variants or {})
            if scope is not None and population.sent_window(*covered(job_id), variants=scope)[0] == 0:
                names = ", ".join(variants_service.label(code) for code in scope)
                raise NotActionable(f"job {job_id} has no delivered copy of the {names} variant to edit",
                                    "act_variant_empty", id=job_id, variant=names)
    except ValueError:
        db.session.rollback()
        raise
    job = creation.insert_draft(settings, **{name: getattr(source, name) for name in COPIED}, kind=kind,
                            source_job_id=job_id, text=text, variants=variants_service.dump(edited),
                            created_by=created_by, progress_chat_id=progress_chat_id, progress_lang=lang,
                            created_at=db_utcnow())
    # An action is never a paid broadcast: deletes and edits take no paid option.
    job.paid, job.paid_limit = False, None
    total = population.populate_action(job.id, *covered(job_id), variants=scope)
    action = audit.UNSENT if kind == KIND_UNSEND else audit.EDITED
    audit.record(actor, action, job_id, f"as job {job.id}: total={total}")
    creation.queue_populated(job, total, actor, action, f"of job {job_id}: total={total}")
    log.info("broadcast job %s %ss job %s: %s copies", job.id, kind, job_id, total)
    return job


__all__ = ["ACTION_KINDS", "NotActionable", "check_source", "edit_job", "edit_limit", "unreachable",
           "unsend_job"]
