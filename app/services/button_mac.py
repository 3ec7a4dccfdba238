"""The short MAC a broadcast's callback buttons carry (tap, keyboard, unsubscribe): one helper, a key per kind.

48 bits of HMAC-SHA256 over the button's message (its job id, and a keyboard
button's position), keyed by a key derived from PUMP_TOKEN and the kind's
label, so a mac of one kind never passes for another's and a press naming
another job is refused before any read (a user's client can send any data
under a message). Written as 8 URL-safe characters.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re

from flask import current_app

# "<job id>.<mac>": the argument of a button signed over its job id alone (the parser's kind "signed").
SIGNED = re.compile(r"([1-9][0-9]{0,18})\.([A-Za-z0-9_-]{8})", re.ASCII)


def sign(label: bytes, message: bytes) -> str:
    """Return the mac of message under the key of label (8 URL-safe characters)."""
    key = hmac.new(current_app.config["PUMP_TOKEN"].encode(), label, hashlib.sha256).digest()
    digest = hmac.new(key, message, hashlib.sha256).digest()[:6]
    return base64.urlsafe_b64encode(digest).decode()


def matches(label: bytes, message: bytes, mac: str) -> bool:
    """Tell, in constant time, whether mac is message's under label."""
    return hmac.compare_digest(mac, sign(label, message))


def parse_signed(raw: str) -> tuple[int, str] | None:
    """Return (job id, mac) of "<id>.<mac>", or None."""
    match = SIGNED.fullmatch(raw)
    return (int(match.group(1)), match.group(2)) if match else None
