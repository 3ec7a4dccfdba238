"""Pump runs recorded bot-wide, and the cron watch: is cron calling, was the outage alerted, who drains."""
from datetime import datetime

from sqlalchemy import BigInteger, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, PreciseDateTime

# Who ran a pump: cron over HTTP, `flask broadcast pump`, an admin's request, webhook traffic while cron is late.
CRON, CLI, ADMIN, FALLBACK = "cron", "cli", "admin", "fallback"
SOURCES = (CRON, CLI, ADMIN, FALLBACK)
# The sources that count as "cron is there": the HTTP cron job and a CLI pump (its crontab form or the worker).
CRON_SOURCES = (CRON, CLI)
WATCH_ID = 1


class PumpRun(db.Model):
    """One source's last run and its running totals (one row per source: the table never grows)."""

    __tablename__ = "pump_runs"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    source: Mapped[str] = mapped_column(String(16), primary_key=True)
    runs: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    processed_total: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    ms_total: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    last_started_at: Mapped[datetime | None] = mapped_column(PreciseDateTime)
    last_finished_at: Mapped[datetime | None] = mapped_column(PreciseDateTime)
    last_ms: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    last_processed: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class CronWatch(db.Model):
    """The single watch row (id 1), on the database's clock.

    ``last_cron_at``: the latest start of a cron or CLI pump. ``alerted_at``:
    set once per outage by a guarded UPDATE, cleared when cron comes back.
    ``slice_token``/``slice_until``: the bot-wide lease of the traffic fallback.
    """

    __tablename__ = "cron_watch"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_cron_at: Mapped[datetime | None] = mapped_column(PreciseDateTime)
    alerted_at: Mapped[datetime | None] = mapped_column(PreciseDateTime)
    slice_token: Mapped[str | None] = mapped_column(String(36))
    slice_until: Mapped[datetime | None] = mapped_column(PreciseDateTime)
