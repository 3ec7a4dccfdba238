"""Inline-button callback data: one pure parser and its matching builder.

Telegram returns whatever string we put on a button, but a client can send
any string at all, so anything that does not parse exactly is rejected.
Wizard buttons also carry the token of the draft (or preview) they belong to,
so a button under an old message can never act on a newer draft. Every
prefix and what it carries is declared here, in one static table that imports
no handler; each handler module attaches its handler to a declared prefix
(@button, app.bot.buttons).
"""
from __future__ import annotations

import re
import secrets
from typing import NamedTuple

from app.models.audience import valid_source
from app.models.broadcast import AUDIENCES
from app.services import button_mac
from app.services.audience import key_press, tap
from app.services.broadcast.content.methods import OPTOUT_DATA, OPTOUT_JOB_PREFIX
from app.services.broadcast.content.variants import LANG_CODE
from app.services.broadcast.reporting import unsubscribes
from app.services.broadcast.schedule.send_time import PRESETS
from app.settings_schema import DEFS

MAX_BYTES = 64  # Telegram's own limit on callback_data
# Far above any job id, below BIGINT's 2**63: a parsed id always fits a query parameter.
MAX_ID = 2**62
_ID = re.compile(r"[1-9][0-9]{0,18}", re.ASCII)
TOKEN_BYTES = 6  # 48 random bits: 8 URL-safe characters
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8}", re.ASCII)
_AB_PICK = re.compile(r"[1-9][0-9]{0,18}\.[A-E]", re.ASCII)
_AB_GOAL = re.compile(r"0|[1-9][0-9]?|100", re.ASCII)  # a keyboard button's position (0: none, by CTR)

# The pre-send screen's toggles: send options, languages, active/joined presets (app.bot.presend_keyboard),
# and auto-expiry's T: off, 1, 6, 24, 47 hours (app.bot.presend_expiry).
TOGGLES = frozenset({"silent", "protect", "fa", "en", "other", "a7", "a30", "j7", "j30", "urgent", "unsub",
                     "x0", "x1", "x6", "x24", "x47"})


# The wizard's A/B test presets (app.bot.ab_step): the test share in percent, the wait before the winner goes.
AB_SHARES = ("10", "20", "30", "50")
AB_WAITS = ("1h", "2h", "6h", "24h")


class Callback(NamedTuple):
    """A parsed button press: what to do, to which job / audience / setting, and for which draft."""

    action: str
    arg: int | str | None = None
    token: str | None = None


Declaration = tuple[str, str, str | None, bool]
# Every inline button: wire prefix, the action parse() returns, its argument kind (a key of _ARGS,
# or None) and whether it carries a draft's token. Buttons already sent keep working: a prefix
# never changes what it means. The handler of each is attached in its module (@button).
DECLARED: tuple[Declaration, ...] = (
    ("w.continue", "continue", "id", False), ("w.cancel_job", "cancel_job", "id", False),
    ("w.pause", "pause", "id", False), ("w.resume", "resume", "id", False),
    ("w.aud", "aud", "audience", True), ("w.no_button", "no_button", None, True),
    ("w.confirm", "confirm", None, True), ("w.abort", "abort", None, True),
    ("w.opt", "toggle", "option", True), ("w.src", "toggle_source", "source", True),
    ("w.var", "add_variant", "variant", True),
    ("w.sched", "schedule", None, True), ("w.at", "at", "preset", True),
    ("w.retime", "retime", "id", False), ("w.send_now", "send_now", "id", False),
    ("s.edit", "edit_setting", "setting", False),
    ("j.list", "job_list", None, False), ("j.view", "job_view", "id", False),
    ("j.auto", "job_automated", None, False),  # /jobs' automated jobs (drip-chain steps, recurring occurrences)
    ("j.export", "export", "id", False),
    ("j.retry", "retry", "id", False), ("j.retry_u", "retry_unknown", "id", False),
    ("r.ok", "retry_ok", None, True), ("r.no", "retry_no", None, True),
    ("j.unsend", "unsend", "id", False), ("j.edit", "edit_all", "id", False),
    ("a.ev", "edit_variant", "edit_variant", True), ("a.yes", "act_yes", None, True), ("a.no", "act_no", None, True),
    ("j.chart", "chart", "id", False),  # the results picture
    ("ab.pick", "ab_pick", "ab_pick", False),  # an A/B test's winner, picked by an admin: "<job id>.<letter>"
    # The wizard's A/B test: start it, "that is all the versions", the test share, the wait; bound to the draft.
    ("w.ab", "ab_start", None, True), ("w.abv", "ab_done", None, True),
    ("w.abs", "ab_share", "ab_share", True), ("w.abw", "ab_wait", "ab_wait", True),
    ("w.abg", "ab_goal", "ab_goal", True),  # the pre-send screen: the winner by CTR (0) or by the button at a position
    # Recurring broadcasts (/recurring).
    ("rc.pause", "rec_pause", "id", False), ("rc.resume", "rec_resume", "id", False),
    ("rc.stop", "rec_stop", "id", False), ("rc.stop_yes", "rec_stop_yes", "id", False),
    ("rc.back", "rec_back", "id", False),
    # Drip chains (/chains).
    ("ch.pause", "chain_pause", "id", False), ("ch.resume", "chain_resume", "id", False),
    ("ch.stop", "chain_stop", "id", False), ("ch.stop_yes", "chain_stop_yes", "id", False),
    ("ch.back", "chain_back", "id", False),
    # Saved segments: a list page or a segment id, bound to the draft or the preview.
    ("w.segs", "segments", "id", True), ("w.seg", "segment", "id", True),
    ("w.xsegs", "exclude_list", "id", True), ("w.xseg", "exclude_toggle", "id", True),
    # After sending: pin / unpin everywhere and auto-expiry.
    ("j.pin", "pin", "id", False), ("j.unpin", "unpin", "id", False),
    ("a.pns", "pin_silent", None, True), ("a.pnn", "pin_notify", None, True), ("a.upy", "unpin_yes", None, True),
    ("j.exp", "expire", "id", False), ("a.exh", "expire_hours", "id", True), ("a.exo", "expire_off", None, True),
    (tap.PREFIX, "tap", "signed", False),  # a broadcast's tag-on-tap button: anyone who got it may press it
    (key_press.PREFIX, "key_press", "keyed", False),  # a keyboard's tap or menu button, under copies alike
    ("w.kp", "key_preview", None, False),  # the same button under the admin's preview: says what it will do
    # Under copies sent to users (and under /stop's answer): anyone may press them. The unsubscribe button is
    # signed (a recipient's press counts once on its job); the two older forms under old copies only opt out.
    (unsubscribes.PREFIX, "unsubscribe", "signed", False),
    (OPTOUT_DATA, "optout", None, False), (OPTOUT_JOB_PREFIX, "optout_job", "id", False),
    ("u.sub", "optin", None, False),
)


def declare(rows: tuple[Declaration, ...]) -> dict[str, tuple[str, str | None, bool]]:
    """Return prefix -> (action, argument kind, carries a token); a prefix or action declared twice is an error."""
    spec: dict[str, tuple[str, str | None, bool]] = {}
    for prefix, action, kind, bound in rows:
        if prefix in spec or any(known == action for known, _, _ in spec.values()):
            raise ValueError(f"button {prefix!r} / {action!r} is declared twice")
        if kind is not None and kind not in _ARGS:
            raise ValueError(f"button {prefix!r} declares an unknown argument kind {kind!r}")
        spec[prefix] = (action, kind, bound)
    return spec


def prefix_of(action: str) -> str:
    """Return the wire prefix of an action (KeyError if no button declares it)."""
    for prefix, (known, _, _) in SPEC.items():
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
    # A tap or unsubscribe button's "<job id>.<mac>" (app.services.button_mac).
    "signed": button_mac.parse_signed,
    # A keyboard button's "<job id>.<position>.<mac>" (app.services.audience.key_press).
    "keyed": key_press.parse_signed,
    # A language version to add (a two-letter code) or "more" (ask for the code).
    "variant": lambda raw: raw if raw == "more" or LANG_CODE.fullmatch(raw) else None,
    # The language version an edit changes: "default" or a two-letter code.
    "edit_variant": lambda raw: raw if raw == "default" or LANG_CODE.fullmatch(raw) else None,
    # An A/B test's version to send to the rest: "<job id>.<letter>".
    "ab_pick": lambda raw: raw if _AB_PICK.fullmatch(raw) else None,
    "ab_share": lambda raw: raw if raw in AB_SHARES else None,
    "ab_wait": lambda raw: raw if raw in AB_WAITS else None,
    "ab_goal": lambda raw: int(raw) if _AB_GOAL.fullmatch(raw) else None,
}
# What parse() and build() read: prefix -> (action, argument kind, carries a draft token).
SPEC = declare(DECLARED)


def parse(data: object) -> Callback | None:
    """Parse callback data such as "w.continue:12" or "w.aud:all:Ab3_x9Kq"; None if malformed."""
    if not isinstance(data, str) or not data or len(data.encode("utf-8")) > MAX_BYTES:
        return None
    prefix, *parts = data.split(":")
    spec = SPEC.get(prefix)
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
