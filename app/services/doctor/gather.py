"""Gather the doctor's facts: the host's limits, the database account's, cron's last run, the webhook, settings.

Every reader degrades on its own: a refused query, an unreadable file or an
unreachable Telegram leaves its fact None (the judge then says it could not
read it) and the rest still runs.
"""
from __future__ import annotations

import os
import tempfile
import time

from flask import current_app
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db
from app.repository import db_limits
from app.services.broadcast.schedule import cron_watch
from app.services.doctor import host
from app.services.doctor.facts import Facts
from app.services.settings import load_settings
from app.services.telegram_factory import get_client
from app.settings_schema import defaults
from app.telegram.errors import TelegramError


def _settings() -> dict:
    """Return the stored settings, or the defaults when the database cannot be read."""
    try:
        return load_settings()
    except SQLAlchemyError:
        db.session.rollback()
        return defaults()


def _database() -> dict:
    """Return the account's limits, or {} when the database cannot be reached."""
    try:
        return db_limits.account_limits()
    except SQLAlchemyError:
        db.session.rollback()
        return {}


def _cron(settings: dict) -> dict:
    """Return cron's last start, its last run's length and whether it is late, or {} when unreadable."""
    try:
        state = cron_watch.cron_state(settings)
        runs = cron_watch.runs()
    except SQLAlchemyError:
        db.session.rollback()
        return {}
    cron_runs = [r for r in runs if r["source"] == "cron"]
    return {"cron_read": True, "cron_minutes_ago": state.minutes_ago, "cron_late": state.late,
            "cron_last_ms": cron_runs[0]["last_ms"] if cron_runs else None}


def _webhook(settings: dict) -> dict | None:
    """Return Telegram's WebhookInfo with its last error's age in seconds, or None when it cannot be asked."""
    if not current_app.config.get("TELEGRAM_BOT_TOKEN"):
        return None
    try:
        info = dict(get_client(settings).get_webhook_info())
    except (TelegramError, SQLAlchemyError):
        db.session.rollback()
        return None
    if info.get("last_error_date"):
        info["error_age_seconds"] = max(int(time.time()) - int(info["last_error_date"]), 0)
    return info


def folders() -> list[str]:
    """Return the folders whose free space matters: the app's and the temporary one."""
    return [current_app.root_path.rsplit(os.sep, 1)[0], tempfile.gettempdir()]


def gather(processes: int, cron_interval: int, updates_per_hour: int) -> tuple[Facts, dict]:
    """Return the facts to judge and what was read besides (sources, this command's own usage) for the report."""
    settings = _settings()
    memory, nproc = host.memory_limit(), host.process_limit()
    account = _database()
    facts = Facts(
        processes=processes, cron_interval=cron_interval, cron_pump_seconds=settings["cron_pump_seconds"],
        broadcast_rate=settings["broadcast_rate_per_second"], telegram_rate=settings["telegram_rate_per_second"],
        broadcast_concurrency=settings["broadcast_concurrency"], updates_per_hour=updates_per_hour,
        memory_limit_mb=memory.value, memory_read=memory.read, nproc_limit=nproc.value,
        nproc_read=nproc.read, address_space_mb=host.address_space_mb(),
        user_connections=account.get("user_connections"), max_questions=account.get("max_questions"),
        max_connections_per_hour=account.get("max_connections_per_hour"),
        webhook=_webhook(settings), public_url=current_app.config.get("PUBLIC_URL") or None,
        disks=tuple(host.disk(path) for path in folders()), **_cron(settings))
    read = {"memory": {"source": memory.source, "tried": memory.tried},
            "nproc": {"source": nproc.source, "tried": nproc.tried},
            "entry_processes": host.entry_processes(), "database": account, "this_command": host.own_usage(),
            "settings": {key: settings[key] for key in ("telegram_rate_per_second", "broadcast_rate_per_second",
                                                        "cron_pump_seconds", "broadcast_concurrency")}}
    return facts, read
