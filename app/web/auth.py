"""Constant-time checks of shared secrets sent by callers."""
import hmac


def secret_matches(given: str | None, expected: str) -> bool:
    """Compare a caller's secret with ours in constant time; empty never matches."""
    if not given or not expected:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))
