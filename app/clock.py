"""Time helpers: every stored timestamp is naive UTC."""
from datetime import datetime, timezone


def utcnow() -> datetime:
    """Return the current UTC time as a naive datetime (what the database stores)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)
