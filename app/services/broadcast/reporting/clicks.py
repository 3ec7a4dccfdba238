"""Tracked link buttons: each copy's button points at {PUBLIC_URL}/r/<token>, which counts the click and redirects.

A token is base64url(item id, 8 bytes) + base64url(first 12 bytes of
HMAC-SHA256 over job id, item id and user id). The key is derived from
PUMP_TOKEN (HMAC(PUMP_TOKEN, "click-v1")), so no secret is ever in a link,
and the link carries no personal data: the item row knows its job and user.
Any other token (forged, altered, of an unknown item) redirects nowhere, and
the target is always the job's own button URL, never anything in the request.
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

KEY_LABEL = b"click-v1"
MAC_BYTES = 12  # 96 bits: guessing one valid token takes ~2**95 tries
_ID = struct.Struct(">Q")
_ID_CHARS = 11  # base64url of 8 bytes, unpadded
_TOKEN_CHARS = _ID_CHARS + 16  # ... then of 12 bytes
PATH = "/r/"


def _b64(raw: bytes) -> str:
    """Return raw as unpadded base64url."""
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _key() -> bytes:
    """Return the dedicated click key, derived from the app's PUMP_TOKEN."""
    return hmac.new(current_app.config["PUMP_TOKEN"].encode(), KEY_LABEL, hashlib.sha256).digest()


def _mac(key: bytes, job_id: int, item_id: int, user_id: int) -> bytes:
    """Return the truncated MAC that binds a token to its job, item and recipient."""
    return hmac.new(key, b"%d:%d:%d" % (job_id, item_id, user_id), hashlib.sha256).digest()[:MAC_BYTES]


def make_token(key: bytes, job_id: int, item_id: int, user_id: int) -> str:
    """Return the token of one recipient's copy."""
    return _b64(_ID.pack(item_id)) + _b64(_mac(key, job_id, item_id, user_id))


def item_of(token: str) -> int | None:
    """Return the item id a well-formed token names (not yet verified), or None."""
    if len(token) != _TOKEN_CHARS or not token.isascii():
        return None
    try:
        raw = base64.urlsafe_b64decode(token[:_ID_CHARS] + "=")
    except ValueError:
        return None
    # Only the canonical spelling: an altered last character that decodes the same is refused too.
    return _ID.unpack(raw)[0] if len(raw) == _ID.size and _b64(raw) == token[:_ID_CHARS] else None


def tracker(job: BroadcastJob):
    """Return the function that personalises a job's call parameters with tracked links, or None when untracked.

    Untracked: no PUBLIC_URL, no button, an album (it carries none) or an
    unsend. An edit keeps its button, so its copies get links of their own
    (its clicks count on the edit job, as a retry's count on the retry).
    """
    base = current_app.config.get("PUBLIC_URL")
    if not base or not job.button_url or job.content_type == CONTENT_ALBUM or job.kind == KIND_UNSEND:
        return None
    key, url, job_id = _key(), job.button_url, job.id

    def personalise(params: dict, item_id: int, user_id: int) -> dict:
        markup = params.get("reply_markup")
        if not markup:
            return params
        link = base + PATH + make_token(key, job_id, item_id, user_id)
        rows = [[{**b, "url": link} if b.get("url") == url else b for b in row] for row in markup["inline_keyboard"]]
        return {**params, "reply_markup": {**markup, "inline_keyboard": rows}}

    return personalise


def follow(token: str) -> str | None:
    """Record a click on token's copy and return its job's button URL; None for any token not ours.

    One SELECT (item, job, URL) and, for a valid token, the guarded UPDATEs;
    the caller commits.
    """
    item_id = item_of(token)
    target = repo.click_target(item_id) if item_id is not None else None
    if target is None:
        return None
    job_id, user_id, url = target
    expected = _b64(_mac(_key(), job_id, item_id, user_id))
    if not url or not hmac.compare_digest(expected, token[_ID_CHARS:]):
        return None
    repo.record_click(job_id, item_id, utcnow())
    return url


def latest_with_button() -> BroadcastJob | None:
    """Return the newest broadcast whose copies carry a link button (/stats shows its clicks), or None."""
    return repo.latest_with_button()
