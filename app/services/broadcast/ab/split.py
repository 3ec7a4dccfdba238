"""Create an A/B test: one job whose versions are lettered variants, sent to a random share of the audience.

The split is made at population, in one INSERT ... SELECT
(app.repository.ab.populate_split): the test's share of the audience,
rounded, taken in a reproducible random order of (job, user), lettered
round-robin. The rest of the audience is not in the test job: the winner
job reaches it later (app.services.broadcast.ab.winner).
"""
from __future__ import annotations

import logging
from datetime import timedelta

from flask import current_app

from app.extensions import db
from app.models.audience import Audience
from app.models.segment_rule import Target
from app.repository import ab as repo
from app.repository import broadcast_population as population
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.audience import segments
from app.services.broadcast.ab import specs as specs_rules
from app.services.broadcast.ab import versions as ab_versions
from app.services.broadcast.content import ab_content, keyboard
from app.services.broadcast.content import variants as variants_service
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.population import discard_draft

log = logging.getLogger(__name__)
NEEDS_TRACKING = ("an A/B test picks its winner by clicks: it needs a link button (--button-text, --button-url) "
                  "and PUBLIC_URL set, so each copy's link is tracked")
NEEDS_CHAT = "a copied version needs --copy-from CHAT_ID: the chat that holds its message"


def check_tracked(specs: dict[str, dict], shared: dict | None, shared_link: bool) -> None:
    """Refuse, in one line, a test whose clicks could not be counted: a version without a link, or no PUBLIC_URL."""
    missing = specs_rules.unlinked(specs, shared, shared_link)
    if len(missing) == len(specs) or not current_app.config.get("PUBLIC_URL"):
        raise ValueError(NEEDS_TRACKING)
    if missing:
        raise ValueError(f"version {missing[0]}'s own buttons have no link: its clicks could not be counted; "
                         f"give it a url button (--ab-key {missing[0]} 'url:TEXT|URL')")


def create_test(*, audience: Audience | Target | str, texts: list, share, wait: timedelta,
                button_text: str | None, button_url: str | None, created_by: int | None,
                settings: dict | None = None, lang: str = "fa", actor: str | None = None, silent: bool = False,
                protect: bool = False, urgent: bool = False, optout_button: bool | None = None,
                progress_chat_id: int | None = None, action: str = audit.CREATED, kb: dict | None = None,
                copy_from: int | None = None, goal=None):
    """Create and queue an A/B test job (ValueError in one line when refused); return it.

    texts: the versions (ab/specs.py: a text, or a dict with a copied
    message and its own buttons); copy_from: the chat copies come from; goal:
    the button (position or text) whose clickers pick the winner (None: CTR).
    Version A is the job's own content, and every version, A included, is in
    `variants` under its letter: each item's letter picks its copy.
    """
    checked, specs = specs_rules.check(texts)
    share = ab_versions.check_share(share)
    audience, fields, _ = creation.check_content(audience, _first_content(checked, specs, copy_from), button_text,
                                                 button_url, None, optout_button, keyboard=kb)
    if "keyboard" in fields:  # the keyboard took the link button in as its first row
        button_text = button_url = None
    shared = keyboard.load(fields.get("keyboard"))
    check_tracked(specs, shared, bool(button_url))
    specs = ab_content.with_goal(specs, checked, specs_rules.resolve_goal(goal, specs, shared))
    if copy_from is not None:
        fields["from_chat_id"] = int(copy_from)
    now = db_utcnow()
    everyone = population.count_audience(audience, now)
    size = ab_versions.sample_size(everyone, share)
    if size < len(checked):
        db.session.rollback()
        raise ValueError(f"{share}% of {everyone} users is {size}: fewer than one recipient per version "
                         f"({len(checked)}); raise --test-share or widen the audience")
    job = creation.insert_draft(settings, **creation.audience_columns(audience), silent=bool(silent),
                                protect=bool(protect), created_by=created_by, button_text=button_text,
                                button_url=button_url, progress_chat_id=progress_chat_id, progress_lang=lang,
                                created_at=now, variants=variants_service.dump(checked),
                                ab_content=ab_content.dump(specs), urgent=bool(urgent),
                                optout_button=optout_button, ab_share=share, ab_wait=int(wait.total_seconds()),
                                ab_state=ab_versions.TESTING, **fields)
    total = _populate(job.id, audience, now, "".join(checked), size)
    detail = (f"ab_test versions={''.join(checked)} share={share}% test={total} of {everyone} "
              f"winner_after={int(wait.total_seconds())}s audience={audience}")
    creation.queue_populated(job, total, actor, action, detail)
    log.info("A/B test job %s created: %s versions, %s of %s users", job.id, len(checked), total, everyone)
    return job


def _first_content(checked: dict[str, str], specs: dict[str, dict], copy_from: int | None) -> dict:
    """Return version A as the job's content (a text, or a copied message), refusing copies without their chat."""
    if copy_from is None and any(ab_content.COPY in spec for spec in specs.values()):
        raise ValueError(NEEDS_CHAT)
    first = specs["A"].get(ab_content.COPY)
    return ({"type": "copy", "from_chat_id": copy_from, "message_id": first} if first else
            {"type": "text", "text": checked["A"]})


def create_from_draft(draft, texts: list, share, wait: timedelta, **who):
    """Create the A/B test a wizard or CLI draft describes (its audience, button and send options) with these versions.

    `broadcast create --ab` and the wizard's Confirm both come here; who:
    created_by, settings, lang, actor, and optionally progress_chat_id,
    action, copy_from (the chat copied versions come from), goal.
    """
    return create_test(audience=segments.of_draft(draft), texts=list(texts), share=share, wait=wait,
                       button_text=draft.button_text, button_url=draft.button_url, silent=draft.silent,
                       protect=draft.protect, urgent=draft.urgent, optout_button=draft.unsubscribe,
                       kb=draft.keyboard, **who)


def _populate(job_id: int, audience, now, letters: str, size: int) -> int:
    """Insert the test's items in one statement after committing the draft; a failure discards the draft."""
    db.session.commit()
    try:
        total = repo.populate_split(job_id, audience, now, letters, size)
        db.session.commit()
    except BaseException:
        db.session.rollback()
        discard_draft(job_id)
        raise
    if total == 0:
        discard_draft(job_id)
        raise creation.EmptyAudience("the audience has no users")
    return total
