"""Random fault injection for message-producing calls."""

from __future__ import annotations

import random
from collections.abc import Mapping

from app.simulator.errors import INTERNAL, ApiError


def without_faults(cfg: Mapping) -> dict:
    """Return cfg with every injected fault switched off (a method outside fault_methods)."""
    return {**cfg, "fail_429_ratio": 0.0, "fail_5xx_ratio": 0.0,
            "fail_5xx_after_delivery_ratio": 0.0, "hang_after_delivery_ratio": 0.0}


def fault_before(cfg: Mapping, rng: random.Random) -> ApiError | None:
    """Maybe return an injected 429 or 500 that stops the call before delivery."""
    if cfg["fail_429_ratio"] and rng.random() < cfg["fail_429_ratio"]:
        low, high = cfg["retry_after_range"]
        retry = rng.randint(low, high)
        return ApiError(429, f"Too Many Requests: retry after {retry}",
                        {"retry_after": retry}, kind="injected")
    if cfg["fail_5xx_ratio"] and rng.random() < cfg["fail_5xx_ratio"]:
        return ApiError(500, INTERNAL, kind="5xx_injected")
    return None


def fault_after(cfg: Mapping, rng: random.Random) -> str | None:
    """Maybe return "502" or "hang": the call was delivered but its answer goes wrong."""
    if cfg["fail_5xx_after_delivery_ratio"] and rng.random() < cfg["fail_5xx_after_delivery_ratio"]:
        return "502"
    if cfg["hang_after_delivery_ratio"] and rng.random() < cfg["hang_after_delivery_ratio"]:
        return "hang"
    return None
