"""An A/B test's numbers (pure): each version's rate, the leader, and a two-proportion z-test against the runner-up.

The rate is the click-through rate (unique clicks / delivered), or with a
goal button the share of delivered copies whose recipient clicked that
button. The test: the leader's and the runner-up's rates compared with the
pooled two-proportion z-test,
z = (p1 - p2) / sqrt(p (1 - p) (1/n1 + 1/n2)), p = (c1 + c2) / (n1 + n2),
and its two-sided p-value erfc(|z| / sqrt 2). Significant below ALPHA.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

ALPHA = 0.05


@dataclass(frozen=True)
class Version:
    """One version's counts in the test job: who got it, who it reached, who clicked (and who clicked the goal)."""

    letter: str
    recipients: int
    delivered: int
    clicks: int
    goal: int | None = None  # recipients who clicked the chosen button; None: the winner is by CTR

    @property
    def ctr(self) -> float:
        """Unique clicks over delivered copies (0 before any delivery)."""
        return self.clicks / self.delivered if self.delivered else 0.0

    @property
    def hits(self) -> int:
        """The recipients the winner is ranked by: the goal button's clickers, else anyone who clicked."""
        return self.clicks if self.goal is None else self.goal

    @property
    def rate(self) -> float:
        """Hits over delivered copies: the CTR, or the chosen button's rate."""
        return self.hits / self.delivered if self.delivered else 0.0


@dataclass(frozen=True)
class ZTest:
    """The pooled two-proportion z-test of the leader against the runner-up."""

    z: float | None
    p_value: float | None

    @property
    def significant(self) -> bool:
        """Tell whether the leader's lead is unlikely to be chance (p < ALPHA)."""
        return self.p_value is not None and self.p_value < ALPHA


def z_test(c1: int, n1: int, c2: int, n2: int) -> ZTest:
    """Return the pooled two-proportion z-test of c1/n1 against c2/n2 (None, None when it cannot be computed)."""
    if not n1 or not n2:
        return ZTest(None, None)
    pooled = (c1 + c2) / (n1 + n2)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if spread == 0:
        return ZTest(None, None)  # no click anywhere (or all clicked): nothing to tell apart
    z = (c1 / n1 - c2 / n2) / spread
    return ZTest(z, math.erfc(abs(z) / math.sqrt(2)))


def ranked(versions: list[Version]) -> list[Version]:
    """Return the versions best first: rate (CTR, or the goal's), then hits, then letter (a stable order for ties)."""
    return sorted(versions, key=lambda v: (-v.rate, -v.hits, v.letter))


def leader(versions: list[Version]) -> Version | None:
    """Return the version strictly ahead by its rate, or None: no hit at all, or a tie at the top (the admin picks)."""
    order = ranked(versions)
    if not order or order[0].hits == 0:
        return None
    if len(order) > 1 and order[1].rate == order[0].rate:
        return None
    return order[0]


def confidence(versions: list[Version]) -> ZTest:
    """Return the z-test of the best version against the runner-up, on the rate the winner is ranked by."""
    order = ranked(versions)
    if len(order) < 2:
        return ZTest(None, None)
    best, second = order[0], order[1]
    return z_test(best.hits, best.delivered, second.hits, second.delivered)
