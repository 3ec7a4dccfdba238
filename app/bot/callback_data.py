"""Inline-button callback data: one pure parser and its matching builder.

Telegram returns whatever string we put on a button, but a client can send
any string at all, so anything that does not parse exactly is rejected.
Wizard buttons also carry the token of the draft (or preview) they belong to,
so a button under an old message can never act on a newer draft. The
prefixes and what each carries are declared with their handlers
(app.bot.buttons); this module only reads that registry.
"""
from __future__ import annotations

import importlib
import re
import secrets
from typing import NamedTuple

from app.bot.buttons import SPEC
from app.models.audience import valid_source
from app.models.broadcast import AUDIENCES
from app.services.audience import tap
from app.services.broadcast.content.variants import LANG_CODE
from app.services.broadcast.schedule.send_time import PRESETS
from app.settings_schema import DEFS

MAX_BYTES = 64  # Telegram's own limit on callback_data
# Far above any job id, below BIGINT's 2**63: a parsed id always fits a query parameter.
MAX_ID = 2**62
_ID = re.compile(r"[1-9][0-9]{0,18}", re.ASCII)
TOKEN_BYTES = 6  # 48 random bits: 8 URL-safe characters
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8}", re.ASCII)

# The pre-send screen's toggles: send options, languages, active/joined presets (app.bot.presend).
TOGGLES = frozenset({"silent", "protect", "fa", "en", "other", "a7", "a30", "j7", "j30"})


class Callback(NamedTuple):
    """A parsed button press: what to do, to which job / audience / setting, and for which draft."""

    action: str
    arg: int | str | None = None
    token: str | None = None


def _spec() -> dict[str, tuple[str, str | None, bool]]:
    """Return the button registry, importing the router (and so every handler module) that fills it."""
    importlib.import_module("app.bot.router")  # imported after this module: a top-level import would be a cycle
    return SPEC


def prefix_of(action: str) -> str:
    """Return the wire prefix of an action (KeyError if no button declares it)."""
    for prefix, (known, _, _) in _spec().items():
        if known == action:
            return prefix
    raise KeyError(action)


def new_token() -> str:
    """Return a fresh random draft/preview token (8 URL-safe characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def _parse_id(raw: str) -> int | None:
    """Accept a positive ASCII decimal id up to MAX_ID (no sign, spaces or leading zeros)."""
    if not _ID.fullmatch(raw):
        return None
    value = int(raw)
    return value if value <= MAX_ID else None


_ARGS = {
    "id": _parse_id,
    "audience": lambda raw: raw if raw in AUDIENCES else None,
    "setting": lambda raw: raw if raw in DEFS else None,
    "option": lambda raw: raw if raw in TOGGLES else None,
    "preset": lambda raw: raw if raw in PRESETS else None,
    "source": lambda raw: raw if valid_source(raw) else None,
    # A tap button's "<job id>.<mac>" (app.services.audience.tap).
    "signed": tap.parse_signed,
    # A language version to add (a two-letter code) or "more" (ask for the code).
    "variant": lambda raw: raw if raw == "more" or LANG_CODE.fullmatch(raw) else None,
    # The language version an edit changes: "default" or a two-letter code.
    "edit_variant": lambda raw: raw if raw == "default" or LANG_CODE.fullmatch(raw) else None,
}


def parse(data: object) -> Callback | None:
    """Parse callback data such as "w.continue:12" or "w.aud:all:Ab3_x9Kq"; None if malformed."""
    if not isinstance(data, str) or not data or len(data.encode("utf-8")) > MAX_BYTES:
        return None
    prefix, *parts = data.split(":")
    spec = _spec().get(prefix)
    if spec is None:
        return None
    action, kind, bound = spec
    if len(parts) != (kind is not None) + bound:
        return None
    arg = token = None
    if kind is not None:
        arg = _ARGS[kind](parts[0])
        if arg is None:
            return None
    if bound:
        token = parts[-1]
        if not _TOKEN.fullmatch(token):
            return None
    return Callback(action, arg, token)


def build(action: str, arg: int | str | None = None, token: str | None = None) -> str:
    """Return the callback data for an action; the inverse of parse()."""
    data = ":".join(str(part) for part in (prefix_of(action), arg, token) if part is not None)
    if parse(data) != Callback(action, arg, token):
        raise ValueError(f"cannot encode {action!r} with {arg!r} and {token!r}")
    return data
