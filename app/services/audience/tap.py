"""Tag on tap: a broadcast's callback button that tags whoever presses it and answers them.

Callback data is `b.tap:<job id>.<mac>`: the mac is 48 bits of HMAC-SHA256
over the job id, keyed by a key derived from PUMP_TOKEN, so a press naming
another job id is refused before any read (a user client can send any data
under a message). A press with a valid mac still changes something only when
the job carries a tap button and the presser is a recipient of a job of its
retry family (lineage.copies_held, the rule every button under a copy takes).
"""
from __future__ import annotations

from sqlalchemy import select, update

from app.extensions import db
from app.models import names
from app.models.broadcast import CONTENT_ALBUM, BroadcastJob, BroadcastJobItem
from app.services import button_mac
from app.services.audience import tags
from app.services.broadcast.actions import lineage
from app.services.broadcast.content import placeholders

PREFIX = "b.tap"
KEY_LABEL = b"tap-v1"
ANSWER_MAX = 200  # Telegram's limit on answerCallbackQuery's text
TEXT_MAX = 64  # the tap_text column


def callback_data(job_id: int) -> str:
    """Return the button's callback data (at most 33 bytes: far under Telegram's 64)."""
    return f"{PREFIX}:{job_id}.{button_mac.sign(KEY_LABEL, str(job_id).encode())}"


def check_tap(tap: dict | None, content_type: str) -> dict:
    """Return a tap button's job columns (text, tag, answer checked), {} for none; raise ValueError in one line."""
    if not tap:
        return {}
    if content_type == CONTENT_ALBUM:
        raise ValueError("an album carries no button (Telegram allows none), so no tap button either")
    text, answer = (tap.get("text") or "").strip(), (tap.get("answer") or "").strip() or None
    if not text or len(text) > TEXT_MAX:
        raise ValueError(f"the tap button's text must be 1..{TEXT_MAX} characters")
    if answer and len(answer) > ANSWER_MAX:
        raise ValueError(f"the tap button's answer is {len(answer)} characters; at most {ANSWER_MAX}")
    placeholders.fixed(text, "tap")  # both go to every presser as typed
    placeholders.fixed(answer, "tap_answer")
    try:
        tag = names.tag(tap.get("tag"))
    except names.BadName as exc:
        raise ValueError(f"tap button: {exc}") from None
    return {"tap_text": text, "tap_tag": tag, "tap_answer": answer}


def press(job_id: int, mac: str, user_id: int) -> tuple[bool, str | None]:
    """Tag the presser and count the press, in the update's transaction; return (accepted, the job's answer).

    Refused (False, None): a mac that is not the job's, a job without a tap
    button, or a presser who was sent no job of its retry family. Who is
    accepted and where a press counts is one rule with the keyboard's and
    the unsubscribe button's (lineage.copies_held): a recipient of any job
    of the family is tagged; the job's counters move only for a presser who
    holds a copy of this job.

    Lock order (app/repository/presses.py): the tag first, then the job row
    (its counters). The tag's INSERT checks its foreign key with a shared lock
    on the presser's users row, so a user's row comes before the job's, as in
    the unsubscribe button and the pump marking users blocked
    (tests/audience/test_tap_lock_order.py, tests/reliability/test_press_lock_order.py).
    The reads above lock nothing.
    """
    if not button_mac.matches(KEY_LABEL, str(job_id).encode(), mac):
        return False, None
    # One read: the job's button and whether the presser is one of its recipients (the (job, user) unique key).
    sent = select(BroadcastJobItem.id).where(BroadcastJobItem.job_id == job_id, BroadcastJobItem.user_id == user_id)
    job = db.session.execute(select(BroadcastJob.tap_tag, BroadcastJob.tap_answer, sent.exists().label("sent"))
                             .where(BroadcastJob.id == job_id)).first()
    if job is None or job.tap_tag is None:
        return False, None
    # A copy of this job itself (the usual press) settles it in that one read; else the retry family decides.
    if not job.sent and not lineage.copies_held(job_id, user_id):
        return False, None
    tagged = tags.tag_user(user_id, job.tap_tag, tags.ORIGIN_BUTTON)
    if job.sent:  # counted on the pressed job only by one of its own recipients
        db.session.execute(update(BroadcastJob).where(BroadcastJob.id == job_id).values(
            tap_presses=BroadcastJob.tap_presses + 1, tap_tagged=BroadcastJob.tap_tagged + int(tagged)))
    return True, job.tap_answer
