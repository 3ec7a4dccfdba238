"""Typed settings: defaults, allowed ranges and cross-setting rules (pure)."""
from __future__ import annotations

import re
from dataclasses import dataclass

# A pump's lease lives this long after each renewal. The pump renews it at
# every step and, while it waits (on sends, a 429, a slot), at least every
# LEASE_HEARTBEAT_SECONDS, so the lease covers the gap between renewals, not
# the whole budget: a crashed pump's job is taken over within TTL + one cron
# minute (90 s), and a cron pump may use almost all of its minute.
LEASE_TTL_SECONDS = 30
LEASE_HEARTBEAT_SECONDS = 10


class SettingError(ValueError):
    """A setting name or value that cannot be accepted."""


@dataclass(frozen=True)
class SettingDef:
    """One setting: its type, default, inclusive range and help text."""

    key: str
    type: type
    default: int | float | bool | str
    min: float | None = None
    max: float | None = None
    help: str = ""


DEFS: dict[str, SettingDef] = {
    d.key: d
    for d in (
        SettingDef("broadcast_batch_size", int, 25, 1, 500, "Items claimed per batch"),
        SettingDef("broadcast_progress_every", int, 5, 1, 100_000, "Processed items between progress edits"),
        SettingDef("telegram_max_retries", int, 2, 0, 5, "Safe retries of one Telegram call"),
        SettingDef("telegram_rate_per_second", float, 29.0, 1, 30,
                   "Bot-wide cap on counted calls per second (every process, every kind of message)"),
        SettingDef("broadcast_rate_per_second", float, 29.0, 1, 30,
                   "Most of the bot-wide cap a broadcast may take per second"),
        SettingDef("broadcast_progress_min_seconds", int, 5, 1, 300,
                   "At least one progress edit this often while a broadcast runs"),
        # 6: at 150 ms per call, 4 in flight could not reach 29/s.
        SettingDef("broadcast_concurrency", int, 6, 1, 64, "Sends in flight at once"),
        SettingDef("broadcast_max_consecutive_errors", int, 10, 1, 1000,
                   "Non-recipient errors in a row before auto-pause"),
        SettingDef("cron_pump_seconds", int, 57, 1, 58, "Budget of one cron pump (cron calls every 60 s)"),
        SettingDef("cron_alert_minutes", int, 3, 1, 60,
                   "Minutes without a cron run, while work waits, before every admin is alerted once"),
        SettingDef("webhook_pump_calls", int, 3, 0, 10, "Bounded pumps run inside an admin's request"),
        SettingDef("webhook_pump_seconds", int, 3, 1, 20, "Budget of each of those pumps"),
        SettingDef("telegram_connect_timeout", float, 1.5, 0.5, 10, "Seconds to connect to Telegram"),
        SettingDef("telegram_read_timeout", float, 3.0, 1, 30, "Seconds to wait for Telegram's answer"),
        # A copy whose answer is given up on is 'unknown' with no message id: no unsend or edit can reach it.
        SettingDef("telegram_send_read_timeout", float, 20.0, 1, 60,
                   "Seconds a broadcast copy waits for Telegram's answer (its message id) before it is unknown"),
        SettingDef("broadcast_paid_enabled", bool, False, None, None,
                   "Send with allow_paid_broadcast (0.1 Star/message)"),
        SettingDef("broadcast_optout_button", bool, False, None, None,
                   "An unsubscribe button under each new broadcast's copies (never under albums)"),
        SettingDef("broadcast_paid_rate_per_second", float, 900.0, 1, 1000, "Rate when paid broadcasts are on"),
        SettingDef("broadcast_paid_concurrency", int, 64, 1, 128, "Sends in flight at once for paid broadcasts"),
        SettingDef("broadcast_paid_max_messages", int, 10_000, 1, 10_000_000, "Per-job cap on paid messages"),
        SettingDef("schedule_grace_minutes", int, 60, 1, 10_080,
                   "A scheduled broadcast later than this (site down) is not sent on its own: admins are asked"),
        SettingDef("db_statements_per_hour", int, 0, 0, 100_000_000,
                   "A host's cap on database queries per hour (0: none): broadcasts pace themselves under it"),
        SettingDef("max_broadcasts_per_user_per_day", int, 0, 0, 100,
                   "Broadcasts a user gets per Tehran day at most; more are skipped (frequency_cap), a chain step "
                   "waits for the next day. 0: no cap"),
        SettingDef("chain_steps_exempt_from_cap", bool, False, None, None,
                   "Drip chain steps ignore the daily cap and do not count toward it. off: a capped step waits "
                   "for the next Tehran day"),
        SettingDef("quiet_hours_start", str, "", None, None,
                   "Tehran time (HH:MM) quiet hours begin: broadcasts pause, urgent ones go on. off: none"),
        SettingDef("quiet_hours_end", str, "", None, None,
                   "Tehran time (HH:MM) quiet hours end and paused broadcasts resume (may wrap midnight). off: none"),
        SettingDef("processed_updates_keep_days", int, 7, 1, 365, "Days to remember handled update ids"),
        SettingDef("broadcast_items_keep_days", int, 0, 0, 100_000,
                   "Cron deletes the per-recipient items of jobs finished this many days ago (0: never)"),
    )
}

_TRUE = {"1", "true", "yes", "on"}
# A time of day setting: empty (or off) turns it off; Persian or Arabic-Indic digits are read as Latin ones.
_OFF = {"", "off", "-", "none", "خاموش"}
_CLOCK = re.compile(r"([01]?\d|2[0-3])\s*[:٫]\s*([0-5]\d)")
_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "0123456789" * 2)
QUIET_KEYS = ("quiet_hours_start", "quiet_hours_end")
MAX_VALUE_LENGTH = 32
_FALSE = {"0", "false", "no", "off"}


def get_def(key: str) -> SettingDef:
    """Return the definition of key, or raise a SettingError naming the known keys."""
    try:
        return DEFS[key]
    except KeyError:
        raise SettingError(f"unknown setting {key!r}; known: {', '.join(sorted(DEFS))}") from None


def _show(text: str, limit: int = 40) -> str:
    """Quote user input for an error message, cut short: errors are shown back in Telegram."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def parse_value(key: str, raw: str | int | float | bool) -> int | float | bool:
    """Parse and range-check a raw value for key."""
    d = get_def(key)
    text = str(raw).strip()
    if len(text) > MAX_VALUE_LENGTH:
        raise SettingError(f"{key}: the value is {len(text)} characters long; no valid value exceeds "
                           f"{MAX_VALUE_LENGTH}")
    if d.type is str:
        return _parse_clock(key, text)
    if d.type is bool:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise SettingError(f"{key}: expected one of on/off, true/false, 1/0, got {_show(text)}")
    try:
        value = d.type(text) if d.type is float else int(text)
    except ValueError:
        kind = "an integer" if d.type is int else "a number"
        raise SettingError(f"{key}: expected {kind}, got {_show(text)}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise SettingError(f"{key}: expected a finite number, got {_show(text)}")
    if (d.min is not None and value < d.min) or (d.max is not None and value > d.max):
        raise SettingError(f"{key}: {_show(str(value))[1:-1]} is outside the allowed range {format_range(d)}")
    return value


def _parse_clock(key: str, text: str) -> str:
    """Parse a Tehran time of day as "HH:MM" ("" when off), or raise a SettingError saying what is expected."""
    plain = text.translate(_DIGITS)
    if plain.lower() in _OFF:
        return ""
    match = _CLOCK.fullmatch(plain)
    if not match:
        raise SettingError(f"{key}: expected a Tehran time such as 23:00 or 08:30 (00:00..23:59), or off; "
                           f"got {_show(text)}")
    return f"{int(match[1]):02d}:{match[2]}"


def check_together(values: dict) -> None:
    """Refuse settings that are valid alone but not together (a quiet window of no length)."""
    start, end = (values.get(k, "") for k in QUIET_KEYS)
    if start and start == end:
        raise SettingError(f"quiet hours would start and end at {start}: set two different times "
                           "(23:00 and 08:00), or turn one off")


def format_range(d: SettingDef) -> str:
    """Describe a setting's allowed values for messages."""
    if d.type is str:
        return "HH:MM (Tehran) or off"
    if d.type is bool:
        return "on/off"
    fmt = (lambda v: str(int(v))) if d.type is int else (lambda v: f"{v:g}")
    return f"{fmt(d.min)}..{fmt(d.max)}"


def format_value(value: int | float | bool | str) -> str:
    """Render a value as stored text."""
    if isinstance(value, str):
        return value or "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def defaults() -> dict:
    """Return every setting at its default."""
    return {k: d.default for k, d in DEFS.items()}
