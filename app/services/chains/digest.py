"""The drip chains' daily digest: once per Tehran day, every admin gets one message with yesterday's numbers.

A chain's step jobs never message the admins one by one (app.services.broadcast.
reporting.alerts); the cron tick sends this instead, from DIGEST_HOUR Tehran
on, covering the Tehran day before, and only when a chain made a step job
that day. Each chain is taken into a day's digest by one guarded UPDATE
(app.repository.chain_digest.take), so two cron passes at once send it once;
a pass that dies between taking and sending loses that day's digest, never
sends it twice.
"""
from __future__ import annotations

import logging
import time
from datetime import date, datetime, timedelta

import jdatetime
from flask import current_app

from app.extensions import db
from app.repository import chain_digest as repo
from app.repository.db_clock import db_utcnow
from app.repository.deadlocks import in_transaction
from app.services import admins
from app.services.broadcast.schedule.quiet_hours import tehran_day_start
from app.services.broadcast.schedule.send_time import to_persian_digits, to_tehran
from app.texts import t

log = logging.getLogger(__name__)
# Tehran hour from which the digest of the day before goes out: the admins' morning, not midnight.
DIGEST_HOUR = 9
FLUSH_SECONDS = 3.0


def send_due(settings: dict, *, now: datetime | None = None, client=None) -> list[dict]:
    """Send yesterday's digest if it is due and this pass took its chains; return the chains' numbers sent.

    now (naive UTC) is the database's clock unless a test passes its own. A
    failure is logged and rolled back: the digest never stops cron's pump.
    """
    try:
        return _send_due(settings, now or db_utcnow(), client)
    except Exception:
        db.session.rollback()
        log.exception("drip chains' daily digest failed")
        return []


def _send_due(settings: dict, now: datetime, client) -> list[dict]:
    """Take yesterday's undigested chains (from DIGEST_HOUR on) and tell the admins their numbers."""
    today = tehran_day_start(now)
    if now < today + timedelta(hours=DIGEST_HOUR):
        return []
    day = to_tehran(now).date() - timedelta(days=1)
    taken = in_transaction(lambda: [chain_id for chain_id in repo.undigested(day) if repo.take(chain_id, day)])
    if not taken:
        return []
    numbers = repo.day_numbers(taken, tehran_day_start(today - timedelta(seconds=1)), today)
    db.session.commit()
    if numbers:
        _tell_admins(day, numbers, settings, client)
    return numbers


def digest_text(day: date, numbers: list[dict], lang: str) -> str:
    """Render the digest (pure): one line per chain."""
    lines = "\n".join(t("chain_digest_line", lang, **row) for row in numbers)
    return t("chain_digest", lang, day=day_text(day, lang), lines=lines)


def day_text(day: date, lang: str) -> str:
    """Render a Tehran day in both calendars, the reader's first: 1405/10/05 (2026-12-26)."""
    jalali = jdatetime.date.fromgregorian(date=day).strftime("%Y/%m/%d")
    if lang == "fa":
        return f"{to_persian_digits(jalali)} ({day.isoformat()})"
    return f"{day.isoformat()} ({jalali})"


def _tell_admins(day: date, numbers: list[dict], settings: dict, client) -> None:
    """Send every admin the digest in their language, as one message."""
    from app.services.telegram_factory import get_client, new_outbox

    chats = admins.alert_chats(current_app.config.get("ADMIN_IDS") or frozenset())
    db.session.commit()
    outbox = new_outbox(client or get_client(settings))
    for chat_id, lang in chats.items():
        outbox.send(chat_id, digest_text(day, numbers, lang))
    outbox.close(deadline=time.monotonic() + FLUSH_SECONDS)
    log.info("drip chains' digest of %s sent to %s admin(s): %s chain(s)", day, len(chats), len(numbers))
