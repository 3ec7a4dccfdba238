"""One recipient's send, and an album's keyboard message right after it: one item, one send, never repeated.

An album's parts cannot carry buttons, so its keyboard goes in a short
message sent to the same chat once the parts are answered, inside the same
item's send: the Booker booked it as one more part, and it waits for its
chat's next slot (1 s after the album: a private chat takes about one
message a second, and a 429 would hold the whole bot) in the send's own
thread, which the Booker's spacing counts (thread_seconds); the item stays
`sending` across both calls (a crash between them leaves it to be counted
`unknown`, never resent), and its message id joins the parts' ids, so an
unsend or expiry deletes it with them. The album decides the item: if the
keyboard message fails or its answer is lost, the item is still sent (the
recipient has the album) with the album's ids alone, and the log names
the job's recipient and Telegram's answer.
"""
from __future__ import annotations

import logging
from dataclasses import replace

from app.services.broadcast.content.methods import FOLLOW
from app.services.broadcast.sending.outcomes import SENT, Outcome, delivered

log = logging.getLogger(__name__)
# A private chat's pace (app/telegram/pacing.py): the keyboard message waits this long after its album.
CHAT_SECONDS = 1.0


def thread_seconds(typical_call: float | None, follow: bool, paced: bool) -> float | None:
    """Return how long one send holds its thread: a call, or an album, its chat's pace and its keyboard message."""
    if not follow:
        return typical_call  # None until a call was timed
    return (typical_call or 0.0) * 2 + (CHAT_SECONDS if paced else 0.0)


def deliver(client, method: str, params: dict, user_id: int, **call) -> Outcome:
    """Send one recipient's copy (and an album's keyboard message after it); return the item's outcome."""
    follow = params.get(FOLLOW)
    if follow:
        params = {key: value for key, value in params.items() if key != FOLLOW}
    outcome = delivered(client.call(method, {"chat_id": user_id, **params}, **call))
    if not follow or outcome.kind != SENT:
        return outcome
    try:  # its bot-wide slot was booked with the album's; its chat's pace is taken here (chat_taken False)
        answer = client.call("sendMessage", {"chat_id": user_id, **follow}, **{**call, "chat_taken": False})
    except Exception as exc:  # the album went: the item is sent whatever this answer was
        log.warning("keyboard message to %s after its album not sent: %s", user_id,
                    getattr(exc, "description", None) or exc)
        return outcome
    message_id = answer.get("message_id") if isinstance(answer, dict) else None
    if type(message_id) is not int or not outcome.message_ids:
        return outcome
    return replace(outcome, message_ids=(*outcome.message_ids, message_id))
