"""Stars as Telegram counts them: whole nanostars (1 Star = 10^9), rendered without float rounding (pure)."""
from __future__ import annotations

NANOSTARS_PER_STAR = 1_000_000_000
# What Telegram bills a paid copy beyond its free rate: 0.1 Star.
PER_PAID_MESSAGE = NANOSTARS_PER_STAR // 10


def of_star_amount(amount: dict) -> int:
    """Return a StarAmount object ({"amount", "nanostar_amount"}) as nanostars."""
    return int(amount.get("amount", 0)) * NANOSTARS_PER_STAR + int(amount.get("nanostar_amount", 0) or 0)


def stars_text(nanostars: int) -> str:
    """Render nanostars as Stars without trailing zeros: 1000, 12.5, 0.3, 0.05 (a negative one with its sign)."""
    sign = "-" if nanostars < 0 else ""
    whole, frac = divmod(abs(nanostars), NANOSTARS_PER_STAR)
    return sign + f"{whole}.{frac:09d}".rstrip("0").rstrip(".")


def cost_text(nanostars: int) -> str:
    """Render a cost in tenths of a Star (what Telegram bills a copy), always with its one decimal: 2.0, 0.3."""
    whole, frac = divmod(nanostars, NANOSTARS_PER_STAR)
    return f"{whole}.{frac * 10 // NANOSTARS_PER_STAR}"


def as_stars(nanostars: int | None) -> float | None:
    """Return nanostars as a number of Stars for JSON (None stays None)."""
    return None if nanostars is None else round(nanostars / NANOSTARS_PER_STAR, 9)
