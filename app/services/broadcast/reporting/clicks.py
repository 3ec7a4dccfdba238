"""Tracked link buttons: each copy's button points at {PUBLIC_URL}/r/<token>, which counts the click and redirects.

A token is base64url(item id, 8 bytes) + base64url(first 12 bytes of
HMAC-SHA256 over job id, item id and user id): the job's single link button.
A keyboard's url button adds its position (1 byte after the item id, and
under the MAC), so each button of a copy has its own link and count. The
key is derived from PUMP_TOKEN (HMAC(PUMP_TOKEN, "click-v1")), so no secret
is ever in a link, and the link carries no personal data: the item row knows
its job and user. Any other token (forged, altered, of an unknown item or
button) redirects nowhere, and the target is always that button's own URL in
the job, never anything in the request.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import struct

from flask import current_app

from app.clock import utcnow
from app.models.broadcast import CONTENT_ALBUM, KIND_UNSEND, BroadcastJob
from app.repository import clicks as repo
from app.services.broadcast.content import ab_content, keyboard
from app.services.broadcast.content.methods import FOLLOW

KEY_LABEL = b"click-v1"
MAC_BYTES = 12  # 96 bits: guessing one valid token takes ~2**95 tries
_ID = struct.Struct(">Q")
_ID_CHARS = 11  # base64url of 8 bytes, unpadded
_TOKEN_CHARS = _ID_CHARS + 16  # ... then of 12 bytes
_KEY_ID = struct.Struct(">QB")  # a keyboard button's token: the item id, then the button's position
_KEY_ID_CHARS = 12  # base64url of 9 bytes
PATH = "/r/"


def _b64(raw: bytes) -> str:
    """Return raw as unpadded base64url."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _key() -> bytes:
    """Return the dedicated click key, derived from the app's PUMP_TOKEN."""
    return hmac.new(current_app.config["PUMP_TOKEN"].encode(), KEY_LABEL, hashlib.sha256).digest()


def _mac(key: bytes, job_id: int, item_id: int, user_id: int, position: int = 0) -> bytes:
    """Return the truncated MAC that binds a token to its job, item, recipient (and keyboard button)."""
    message = b"%d:%d:%d" % (job_id, item_id, user_id) + (b":%d" % position if position else b"")
    return hmac.new(key, message, hashlib.sha256).digest()[:MAC_BYTES]


def make_token(key: bytes, job_id: int, item_id: int, user_id: int, position: int = 0) -> str:
    """Return the token of one recipient's copy (position: a keyboard button's, 0 for the single link button)."""
    head = _b64(_KEY_ID.pack(item_id, position)) if position else _b64(_ID.pack(item_id))
    return head + _b64(_mac(key, job_id, item_id, user_id, position))


def item_of(token: str) -> int | None:
    """Return the item id a well-formed token names (not yet verified), or None."""
    parsed = parse(token)
    return parsed[0] if parsed else None


def parse(token: str) -> tuple[int, int] | None:
    """Return (item id, button position) of a well-formed token (not yet verified), or None."""
    if not token.isascii() or len(token) not in (_TOKEN_CHARS, _TOKEN_CHARS + 1):
        return None
    keyed = len(token) > _TOKEN_CHARS
    head = token[:_KEY_ID_CHARS if keyed else _ID_CHARS]
    try:
        raw = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except ValueError:
        return None
    shape = _KEY_ID if keyed else _ID
    # Only the canonical spelling: an altered last character that decodes the same is refused too.
    if len(raw) != shape.size or _b64(raw) != head:
        return None
    item_id, *position = shape.unpack(raw)
    return (item_id, position[0]) if keyed else (item_id, 0)


def tracker(job: BroadcastJob):
    """Return the function that personalises a job's call parameters with tracked links, or None when untracked.

    Untracked: no PUBLIC_URL, no link button, an unsend, or an album without
    a keyboard (its parts carry none; its keyboard rides the message after it).
    An edit keeps its buttons, so its copies get links of their own (its
    clicks count on the edit job, as a retry's count on the retry).
    """
    if not tracked(job):
        return None
    base, positions, own = current_app.config["PUBLIC_URL"], _url_positions(job), _own_positions(job)
    key, job_id = _key(), job.id

    def links(markup: dict, item_id: int, user_id: int, variant: str | None) -> dict:
        # The markup's url buttons are the copy's keyboard's, in reading order: the i-th is at urls' i-th position.
        urls = iter(own.get(variant, positions))
        rows = [[{**b, "url": base + PATH + make_token(key, job_id, item_id, user_id, next(urls))}
                 if "url" in b else b for b in row] for row in markup["inline_keyboard"]]
        return {**markup, "inline_keyboard": rows}

    def personalise(params: dict, item_id: int, user_id: int, variant: str | None = None) -> dict:
        if params.get("reply_markup"):
            return {**params, "reply_markup": links(params["reply_markup"], item_id, user_id, variant)}
        if FOLLOW in params:  # an album's keyboard message
            follow = params[FOLLOW]
            return {**params, FOLLOW: {**follow, "reply_markup": links(follow["reply_markup"], item_id, user_id,
                                                                       variant)}}
        return params

    return personalise


def tracked(job: BroadcastJob) -> bool:
    """Tell whether a job's copies get tracked links: PUBLIC_URL set, a link button, not an unsend (see tracker)."""
    album_without_keyboard = job.content_type == CONTENT_ALBUM and not keyboard.load(job.keyboard)
    return bool(current_app.config.get("PUBLIC_URL")) and has_link(job) and job.kind != KIND_UNSEND and (
        not album_without_keyboard)


def has_link(job: BroadcastJob) -> bool:
    """Tell whether a job's copies carry a link button (shared, or an A/B version's own)."""
    return bool(_url_positions(job) or any(_own_positions(job).values()))


def _url_positions(job: BroadcastJob) -> list[int]:
    """Return the positions of the job's shared url buttons (the single link button is position 0)."""
    kb = keyboard.load(job.keyboard)
    return keyboard.url_positions(kb) if kb else ([0] if job.button_url else [])


def _own_positions(job: BroadcastJob) -> dict[str, list[int]]:
    """Return each A/B version's own url buttons' positions in its own keyboard."""
    return {letter: keyboard.url_positions(kb) for letter, kb in ab_content.own_keyboards(job)}


def follow(token: str, count: bool = True) -> str | None:
    """Record a click on token's button (count) and return its URL; None for any token not ours.

    One SELECT (item, job, URLs) and, for a valid token, the guarded UPDATEs;
    the caller commits. Only a GET is a click: a HEAD (link previewers,
    prefetchers, checkers) learns the URL with count False and counts nothing.
    """
    parsed = parse(token)
    target = repo.click_target(parsed[0]) if parsed is not None else None
    if target is None:
        return None
    (item_id, position), (job_id, user_id, variant, job) = parsed, target
    expected = _b64(_mac(_key(), job_id, item_id, user_id, position))
    # The item's version picks the keyboard: a click on version B's link goes to B's URL and counts on B's button.
    url = _url_at(ab_content.keyboard_for(job, variant), position) if position else job.button_url
    if not url or not hmac.compare_digest(expected, token[-16:]):
        return None
    if count:
        repo.record_click(job_id, item_id, utcnow(), position, ab_content.counter_variant(job, variant))
    return url


def _url_at(kb: dict | None, position: int) -> str | None:
    """Return the URL of the url button at position in a keyboard, or None."""
    found = dict(keyboard.buttons(kb)).get(position)
    return found.get("url") if found else None


def latest_with_button() -> BroadcastJob | None:
    """Return the newest broadcast whose copies carry a link button (/stats shows its clicks), or None."""
    return repo.latest_with_button()
