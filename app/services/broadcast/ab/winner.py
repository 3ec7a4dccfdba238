"""The winner of an A/B test sent to the rest of the audience: by cron after the wait, or at an admin's pick; once.

Making the winner job is one transaction (in_transaction): the guarded
UPDATE of the test's ab_state (app.repository.ab.claim_winner), the job's
row with the winner's text, its items (the audience now, less everyone the
test holds: one INSERT ... SELECT), its total and its queueing. So two cron
passes, two servers or an admin's pick beside cron make one winner job, and
a process killed anywhere leaves all of it or none (the test stays open and
the next cron pass makes it). The price: the rest's population is one
statement, not chunks (about 1 s per 100,000 users on MySQL).

No clear leader when the wait is over (no click at all, or a tie at the
top): cron sends nothing and tells the admins once (testing -> asked, a
guarded UPDATE), with a button per version; the test waits for their pick.
"""
from __future__ import annotations

import logging
from datetime import datetime, timedelta

from app.extensions import db
from app.models.broadcast import CANCELLED, CONTENT_COPY, CONTENT_TEXT, DRAFT, SCHEDULED, BroadcastJob
from app.repository import ab as repo
from app.repository import broadcast_jobs as jobs_repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import audit
from app.services.broadcast.ab import stats
from app.services.broadcast.ab.versions import ASKED, OPEN_STATES, SENT, TESTING
from app.services.broadcast.content import ab_content, keyboard
from app.services.broadcast.content import variants as variants_service
from app.services.broadcast.jobs import creation
from app.services.broadcast.jobs.control import start_next_if_idle
from app.services.broadcast.jobs.job_audience import audience_of
from app.services.settings import load_settings

log = logging.getLogger(__name__)
# The test's columns its winner job keeps: its audience as chosen, its button and its send options.
COPIED = ("audience", "audience_langs", "audience_active_days", "audience_joined_days", "audience_sources",
          "audience_rule", "parse_mode", "button_text", "button_url", "silent", "protect", "optout_button", "urgent",
          "keyboard", "from_chat_id")


class NotPickable(ValueError):
    """The test cannot take a winner now; the message says why in one line."""


def versions_of(test_id: int) -> list[stats.Version]:
    """Return each version's counts in the test job (one GROUP BY), with its goal button's clickers when it has one."""
    test = db.session.get(BroadcastJob, test_id)
    rows = repo.version_counts(test_id, ab_content.goal(test) if test is not None else None)
    db.session.commit()
    return [stats.Version(letter or "?", n, sent, clicks, goal) for letter, n, sent, clicks, goal in rows]


def pick(test_id: int, letter: str, *, actor: str | None, settings: dict | None = None) -> int | None:
    """Send version `letter` of a test to the rest now (an admin's pick); return the winner job (None: nobody left).

    Raises NotPickable when the test is not open (no test, cancelled,
    not yet sending, its winner already chosen) or has no such version.
    """
    test = db.session.get(BroadcastJob, test_id)
    letter = (letter or "").strip().upper()
    if test is None or test.ab_state is None:
        db.session.rollback()
        raise NotPickable(f"job {test_id} is not an A/B test")
    problem = _pick_problem(test, letter)
    db.session.rollback()
    if problem:
        raise NotPickable(problem)
    made = make_winner(test_id, letter, actor=actor, settings=settings)
    if made is False:
        raise NotPickable(f"job {test_id}'s winner was chosen meanwhile")
    return made


def _pick_problem(test: BroadcastJob, letter: str) -> str | None:
    """Return why a test cannot take this winner now, or None."""
    if test.ab_state not in OPEN_STATES:
        return f"job {test.id}'s winner was already chosen (version {test.ab_winner})"
    if test.status == CANCELLED:
        return f"job {test.id} was cancelled: a cancelled test sends no winner"
    if test.status in (DRAFT, SCHEDULED):
        return f"job {test.id} has not started sending yet"
    if letter not in variants_service.of(test):
        return f"job {test.id} has no version {letter!r} (its versions: {', '.join(variants_service.of(test))})"
    return None


def make_winner(test_id: int, letter: str, *, actor: str | None, settings: dict | None = None) -> int | None | bool:
    """Claim the test's winner and make its job in one transaction: its id, None (nobody left) or False (lost)."""
    now = db_utcnow()
    # Never paid: nobody confirms a winner's cost (as a recurring occurrence's).
    settings = {**(settings or load_settings()), "broadcast_paid_enabled": False}

    def claim() -> int | None | bool:
        if not repo.claim_winner(test_id, letter, OPEN_STATES, SENT):
            return False  # another cron pass or an admin chose it first: their transaction made the job
        test = db.session.get(BroadcastJob, test_id)
        columns = {**{name: getattr(test, name) for name in COPIED}, **winner_content(test, letter)}
        job = creation.insert_draft(settings, **columns, ab_of=test_id, created_by=test.created_by,
                                    progress_chat_id=None, progress_lang=test.progress_lang, created_at=now)
        total = repo.populate_rest(job.id, test_id, audience_of(test), now)
        if total == 0:
            jobs_repo.delete_draft(job.id)
            audit.record(actor, audit.CREATED, test_id, f"ab_winner version={letter}: nobody left to send to")
            return None
        jobs_repo.set_total(job.id, total)
        jobs_repo.queue_draft(job.id)
        audit.record(actor, audit.CREATED, job.id, f"ab_winner of=#{test_id} version={letter} total={total}")
        return job.id

    made = in_transaction(claim)
    if made:
        log.info("A/B test %s: version %s goes to the rest as job %s", test_id, letter, made)
        start_next_if_idle()
    return made


def winner_content(test: BroadcastJob, letter: str) -> dict:
    """Return the winner job's content columns: the version's text or copied media, and its buttons."""
    columns: dict = {"content_type": CONTENT_TEXT, "text": variants_service.of(test)[letter], "source_message_id": None}
    if (message_id := ab_content.copy_of(test, letter)) is not None:
        columns = {"content_type": CONTENT_COPY, "text": None, "source_message_id": message_id}
    kb = ab_content.of(test).get(letter, {}).get(ab_content.KEYBOARD)
    if kb:  # the version's own buttons replace the test's shared ones
        columns.update(keyboard=keyboard.dump(kb), button_text=None, button_url=None)
    return columns


def due(now: datetime) -> list[int]:
    """Return the completed tests whose wait is over (cron's list)."""
    found = [job_id for job_id, finished, wait in repo.tests_in(TESTING)
             if finished is not None and finished + timedelta(seconds=wait or 0) <= now]
    db.session.commit()
    return found


def release_due(settings: dict, *, now: datetime | None = None) -> tuple[list[int], list[int]]:
    """Send each due test's clear leader to the rest; mark the others asked. Return (winner jobs, tests asked).

    A test that fails is logged and left for the next call: one bad row
    never stops cron's pump.
    """
    now = now or db_utcnow()
    made, asked = [], []
    for test_id in due(now):
        try:
            best = stats.leader(versions_of(test_id))
            if best is None:
                if in_transaction(lambda test_id=test_id: repo.mark_asked(test_id, TESTING, ASKED)):
                    asked.append(test_id)
                continue
            job_id = make_winner(test_id, best.letter, actor=audit.ACTOR_CRON, settings=settings)
            if job_id:
                made.append(job_id)
        except Exception:
            db.session.rollback()
            log.exception("A/B test %s: its winner could not be made", test_id)
    return made, asked
