"""A press on a keyboard's tap or menu button under a copy: checked, counted per button, answered inside the bot.

Callback data is `b.key:<job id>.<position>.<mac>`, signed over the job id
and the button's position (app.services.button_mac), so a press naming
another job or button is refused before any read. A press with a valid mac
still changes something only when the job's keyboard has a tap or menu
button there and the presser was sent a job of its retry family: the rule of
every button under a copy (lineage.copies_held), counted on the pressed job
only when the presser holds its copy. A tap button tags the
presser (as the single tap button does) and answers with a short toast; a
menu button answers with the admin's text as an alert: answerCallbackQuery
takes no slot of the broadcast's budget and no chat pace, and cannot add a
message to the chat, so a thousand presses cost no send and a repeated
press only shows the text again.
"""
from __future__ import annotations

import re

from sqlalchemy import select, update

from app.extensions import db
from app.models.broadcast import BroadcastJob
from app.repository import buttons as buttons_repo
from app.services import button_mac
from app.services.audience import tags
from app.services.broadcast.actions import lineage
from app.services.broadcast.content import ab_content, keyboard

PREFIX = "b.key"
KEY_LABEL = b"key-v1"
SIGNED = re.compile(r"([1-9][0-9]{0,18})\.([1-9][0-9]{0,2})\.([A-Za-z0-9_-]{8})", re.ASCII)


def callback_data(job_id: int, position: int) -> str:
    """Return a keyboard button's callback data (at most 38 bytes: under Telegram's 64)."""
    return f"{PREFIX}:{job_id}.{position}.{button_mac.sign(KEY_LABEL, b'%d.%d' % (job_id, position))}"


def parse_signed(raw: str) -> tuple[int, int, str] | None:
    """Return (job id, position, mac) of "<id>.<position>.<mac>", or None (the parser's argument kind "keyed")."""
    match = SIGNED.fullmatch(raw)
    return (int(match.group(1)), int(match.group(2)), match.group(3)) if match else None


def press(job_id: int, position: int, mac: str, user_id: int) -> tuple[str | None, str | None]:
    """Count a press (a tap button also tags the presser), in the update's transaction; return (kind, answer).

    Refused (None, None): a mac that is not this button's, a job or position
    without a tap or menu button, or a presser who was sent no job of its retry family.
    Lock order as the single tap button's (app/repository/presses.py): the
    tag, then the job row, then the button's row.
    """
    if not button_mac.matches(KEY_LABEL, b"%d.%d" % (job_id, position), mac):
        return None, None
    job = db.session.execute(select(BroadcastJob.keyboard, BroadcastJob.ab_content)
                             .where(BroadcastJob.id == job_id)).first()
    held = lineage.copies_held(job_id, user_id) if job is not None else {}
    if job is None or not held:  # no such job, or the presser was sent no job of its retry family
        return None, None
    # The presser's A/B version picks the keyboard (its own buttons, or the job's): this job's copy, else
    # the family's first (a retry keeps its source's versions).
    variant = held[job_id] if job_id in held else held[min(held)]
    found = dict(keyboard.buttons(ab_content.keyboard_for(job, variant))).get(position)
    if found is None or found["kind"] not in ("tap", "menu"):
        return None, None
    tagged = found["kind"] == "tap" and tags.tag_user(user_id, found["tag"], tags.ORIGIN_BUTTON)
    if job_id in held:  # counted on the pressed job only by one who holds its copy
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
            tap_presses=BroadcastJob.tap_presses + 1, tap_tagged=BroadcastJob.tap_tagged + int(bool(tagged))))
        buttons_repo.add_press(job_id, position, ab_content.counter_variant(job, variant))
    return found["kind"], found.get("answer")
