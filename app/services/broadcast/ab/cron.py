"""Cron's A/B pass: each due test's clear leader goes to the rest; the admins are told once of a test without one."""
from __future__ import annotations

import logging
import time

from flask import current_app
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.services import admins
from app.services.broadcast.ab import winner
from app.services.broadcast.content import variants as variants_service
from app.texts import t

log = logging.getLogger(__name__)
# The pick button's callback data: "ab.pick:<test id>.<letter>" (declared in app.bot.callback_data).
PICK_PREFIX = "ab.pick"
ALERT_FLUSH_SECONDS = 3.0


def run(settings: dict, *, client=None) -> list[int]:
    """Make the winner jobs that are due and alert the admins about tests without a leader; return the jobs made."""
    made, asked = winner.release_due(settings)
    if asked:
        _tell_admins(asked, settings, client)
    return made


def pick_keyboard(test_id: int, letters, lang: str) -> InlineKeyboardMarkup:
    """Return one "🏆 send version X to the rest" button per version of a test."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(t("btn_ab_pick", lang, v=letter),
                                                       callback_data=f"{PICK_PREFIX}:{test_id}.{letter}")]
                                 for letter in letters])


def _tell_admins(test_ids: list[int], settings: dict, client) -> None:
    """Send every admin one alert per test whose wait ended without a leader (its claim was committed first)."""
    from app.services.telegram_factory import get_client, new_outbox

    chats = admins.alert_chats(current_app.config.get("ADMIN_IDS") or frozenset())
    tests = [(job.id, list(variants_service.of(job))) for job in
             (db.session.get(BroadcastJob, test_id) for test_id in test_ids) if job is not None]
    db.session.commit()
    outbox = new_outbox(client or get_client(settings))
    for test_id, letters in tests:
        log.warning("A/B test %s: no clear leader when its wait ended; asking %s admin(s)", test_id, len(chats))
        for admin_id, lang in chats.items():
            outbox.send(admin_id, t("ab_alert", lang, id=test_id), reply_markup=pick_keyboard(test_id, letters, lang))
    outbox.close(deadline=time.monotonic() + ALERT_FLUSH_SECONDS)
