"""The bot's Stars balance, kept exactly in nanostars: getMyStarBalance reads it, paid sends over the free rate draw it.

Telegram bills a message sent with allow_paid_broadcast 0.1 Star when it goes
beyond the bot's free rate (paid_free_rate a second; 0: every paid message is
billed). A billed message the balance cannot pay is refused with a 400 and
not delivered (the simulator's wording: Bad Request: BALANCE_TOO_LOW, the
error Telegram's own API gives for a Stars balance too low).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from app.simulator.errors import ApiError
from app.simulator.limits import SlidingWindow

NANOSTARS_PER_STAR = 1_000_000_000
# 0.1 Star: 1 Star pays for 10 paid messages.
PER_PAID_MESSAGE = NANOSTARS_PER_STAR // 10
NO_STARS = "Bad Request: BALANCE_TOO_LOW"


def to_nanostars(stars: float | int | str) -> int:
    """Return a Stars amount as whole nanostars, exactly as written (0.3 is 300,000,000, not a float's 299,999,999)."""
    return int((Decimal(str(stars)) * NANOSTARS_PER_STAR).to_integral_value())


def star_amount(nanostars: int) -> dict:
    """Return the StarAmount object: whole Stars, plus nanostar_amount when there is a fraction."""
    amount, nano = divmod(nanostars, NANOSTARS_PER_STAR)
    return {"amount": amount, "nanostar_amount": nano} if nano else {"amount": amount}


class StarBalance:
    """The balance and what paid sends were billed; callers hold the simulator lock."""

    def __init__(self, nanostars: int):
        self.nanostars = nanostars
        self.free = SlidingWindow()  # the paid messages of the last second that went within the free rate
        self.billed = 0              # paid messages billed 0.1 Star each

    def charge(self, cfg: Mapping, now: float, parts: int = 1) -> None:
        """Bill paid messages over the free rate, or raise the 400 when the balance cannot pay them."""
        free_rate = cfg["paid_free_rate"]
        free = 0
        while free < parts and free_rate and self.free.wait(now, free_rate) == 0:
            self.free.add(now)
            free += 1
        cost = (parts - free) * PER_PAID_MESSAGE
        if cost > self.nanostars:
            raise ApiError(400, NO_STARS)
        self.nanostars -= cost
        self.billed += parts - free

    def set(self, amount: int, nanostar_amount: int = 0) -> None:
        """Set the balance exactly (a top-up in @BotFather, or Stars spent elsewhere)."""
        amount, nano = int(amount), int(nanostar_amount)
        if amount < 0 or not 0 <= nano < NANOSTARS_PER_STAR:
            raise ValueError("amount must be >= 0 and nanostar_amount within 0..999999999")
        self.nanostars = amount * NANOSTARS_PER_STAR + nano
