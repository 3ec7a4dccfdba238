"""Simulator settings: defaults, validation, and immutable snapshots."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

DEFAULTS: dict[str, Any] = {
    "latency_ms": 0.0,
    "latency_jitter_ms": 0.0,
    "global_rate": 30,
    "paid_rate": 1000,
    "per_chat_limits": True,
    "private_chat_interval": 1.0,
    "per_chat_tolerance": 0.1,
    "group_rate": 20,
    "group_window": 60.0,
    # Telegram's 1 msg/s per chat is about new messages; edits are looser.
    "per_chat_edits": False,
    "fail_429_ratio": 0.0,
    "retry_after_range": (1, 5),
    "fail_5xx_ratio": 0.0,
    "fail_5xx_after_delivery_ratio": 0.0,
    "hang_after_delivery_ratio": 0.0,
    "hang_seconds": 5.0,
    # Methods the injected faults above apply to; empty = every message-producing one.
    "fault_methods": (),
    "strict_copy": True,
    # (chat id, source message id) pairs copyMessages skips to that chat, as Telegram skips a part it cannot copy.
    "copy_skip": (),
    "seed": None,
    "webhook_timeout": 10.0,
    # The bot's Stars balance (setting it sets the balance; paid sends then draw it down), in Stars:
    # fractions become nanostar_amount, exactly. Paid messages beyond paid_free_rate a second cost 0.1 Star each.
    "star_balance": 1000.0,
    "paid_free_rate": 30,
    # Seconds added to every message's age: deleteMessage(s) refuse messages older than 48 h.
    "message_age_offset": 0.0,
}

_RATIOS = ("fail_429_ratio", "fail_5xx_ratio", "fail_5xx_after_delivery_ratio",
           "hang_after_delivery_ratio")
_RATES = ("global_rate", "paid_rate", "group_rate", "paid_free_rate")
_FLOATS = ("latency_ms", "latency_jitter_ms", "private_chat_interval", "per_chat_tolerance",
           "group_window", "hang_seconds", "webhook_timeout", "star_balance", "message_age_offset")
_BOOLS = ("per_chat_limits", "per_chat_edits", "strict_copy")


def merge(current: dict[str, Any], updates: dict[str, Any]) -> MappingProxyType:
    """Return a validated read-only copy of current with updates applied."""
    unknown = sorted(set(updates) - set(DEFAULTS))
    if unknown:
        raise ValueError(f"unknown simulator config key(s): {', '.join(unknown)}")
    merged = dict(current)
    for key, value in updates.items():
        merged[key] = _coerce(key, value)
    # Read-only so request threads can use a snapshot without the lock.
    return MappingProxyType(merged)


def _coerce(key: str, value: Any) -> Any:
    """Check one setting and convert it to its canonical type."""
    if key in _RATIOS:
        value = float(value)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{key} must be within 0..1")
    elif key in _RATES:
        value = int(value or 0)
        if value < 0:
            raise ValueError(f"{key} must be >= 0 (0 = unlimited)")
    elif key in _FLOATS:
        value = float(value)
        if value < 0:
            raise ValueError(f"{key} must be >= 0")
    elif key in _BOOLS:
        value = _as_bool(value)
    elif key == "retry_after_range":
        low, high = (int(v) for v in value)
        if not 1 <= low <= high:
            raise ValueError("retry_after_range must be (low, high) with 1 <= low <= high")
        value = (low, high)
    elif key == "fault_methods":
        if isinstance(value, str):
            value = [v for v in value.split(",") if v.strip()]
        value = tuple(str(v).strip() for v in value or ())
    elif key == "copy_skip":
        value = tuple((int(chat_id), int(message_id)) for chat_id, message_id in value or ())
    elif key == "seed" and value is not None:
        value = int(value)
    return value


def _as_bool(value: Any) -> bool:
    """Read a bool from a JSON/CLI value."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def as_json(cfg: MappingProxyType) -> dict[str, Any]:
    """Return the settings as a JSON-friendly dict."""
    out = dict(cfg)
    out["retry_after_range"] = list(out["retry_after_range"])
    return out
