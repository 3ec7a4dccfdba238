"""What the doctor knows (Facts) and what it finds (Verdict): plain data, no I/O."""
from __future__ import annotations

from dataclasses import dataclass, field

OK, FAIL, UNKNOWN, INFO = "ok", "fail", "unknown", "info"


@dataclass(frozen=True)
class Verdict:
    """One check's finding: its state, the text saying it (key, values) and, when it does not fit, what to change."""

    check: str
    state: str
    key: str
    values: dict = field(default_factory=dict)
    fix: str | None = None
    fix_values: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """Return the JSON form (`flask doctor --json`)."""
        return {"check": self.check, "state": self.state, "finding": self.key, "values": self.values,
                "fix": self.fix, "fix_values": self.fix_values}


@dataclass(frozen=True)
class Facts:
    """What the doctor read (None: could not read; a limit of 0 or None read as "no limit" is passed as None)."""

    processes: int
    cron_interval: int
    cron_pump_seconds: int
    broadcast_rate: float
    telegram_rate: float
    broadcast_concurrency: int
    updates_per_hour: int
    memory_limit_mb: float | None = None
    nproc_limit: int | None = None
    address_space_mb: float | None = None
    memory_read: bool = False  # some limit file was read (None then means unlimited, not unknown)
    nproc_read: bool = False
    user_connections: int | None = None  # the account's or the server's cap; 0 = none
    max_questions: int | None = None  # per hour; 0 = none
    max_connections_per_hour: int | None = None
    cron_minutes_ago: int | None = None
    cron_last_ms: int | None = None
    cron_late: bool | None = None
    cron_read: bool = False
    webhook: dict | None = None
    public_url: str | None = None
    disks: tuple = ()  # (path, free MB or None, free inodes or None)
