"""The doctor's checks of the work (pure): the hourly query cap, cron's budget and last run, the webhook, disk."""
from __future__ import annotations

from app.services.doctor.facts import FAIL, INFO, OK, UNKNOWN, Facts, Verdict

# Statements: per broadcast message (issue 39's goal, docs/PERFORMANCE.md), per handled update, per idle cron run.
QUERIES_PER_MESSAGE = 0.5
QUERIES_PER_UPDATE = 6
QUERIES_PER_CRON_RUN = 6
# A cron run's start (Python, the app, the database) before its pump's budget starts counting.
CRON_START_SECONDS = 3
# Updates Telegram may hold before its calls are failing; an error this recent is current.
PENDING_UPDATES_MAX = 100
WEBHOOK_ERROR_FRESH_SECONDS = 3600
# Free space a deployment needs: logs, an upgrade's new files, a CSV export.
DISK_FREE_MB_MIN = 200
INODES_FREE_MIN = 2000


def hourly_queries(facts: Facts, rate: float) -> int:
    """Return the statements of an hour of broadcasting at rate, with updates_per_hour and every cron run."""
    background = facts.updates_per_hour * QUERIES_PER_UPDATE + 3600 // facts.cron_interval * QUERIES_PER_CRON_RUN
    return int(rate * 3600 * QUERIES_PER_MESSAGE + background)


def queries(facts: Facts) -> Verdict:
    """Check an hour of broadcasting (plus updates and cron runs) against MAX_QUERIES_PER_HOUR."""
    rate = min(facts.broadcast_rate, facts.telegram_rate)
    need = hourly_queries(facts, rate)
    values = {"rate": rate, "updates": facts.updates_per_hour, "need": need}
    if not facts.max_questions:
        return Verdict("queries", INFO if facts.max_questions == 0 else UNKNOWN,
                       "doc_queries_unlimited" if facts.max_questions == 0 else "doc_queries_unread", values)
    values["limit"] = facts.max_questions
    if need <= facts.max_questions:
        return Verdict("queries", OK, "doc_queries_fit", values)
    spare = facts.max_questions - hourly_queries(facts, 0)
    fitting = int(spare / (3600 * QUERIES_PER_MESSAGE) * 10) / 10  # one decimal, rounded down
    if fitting < 1:  # broadcast_rate_per_second's floor: no rate fits, the cap or the traffic must change
        return Verdict("queries", FAIL, "doc_queries_over", values, "doc_fix_queries_cap")
    return Verdict("queries", FAIL, "doc_queries_over", values, "doc_fix_rate", {"rate": fitting})


def cron_budget(facts: Facts) -> Verdict:
    """Check a cron run's start plus its pump budget ends before the next run starts."""
    need = facts.cron_pump_seconds + CRON_START_SECONDS
    values = {"seconds": facts.cron_pump_seconds, "need": need, "interval": facts.cron_interval}
    if need <= facts.cron_interval:
        return Verdict("cron_budget", OK, "doc_cron_fits", values)
    return Verdict("cron_budget", FAIL, "doc_cron_over", values, "doc_fix_cron_seconds",
                   {"seconds": max(facts.cron_interval - CRON_START_SECONDS, 1)})


def cron_last_run(facts: Facts) -> Verdict:
    """Check cron's last recorded run: late while work waits, or longer than its interval."""
    if not facts.cron_read:
        return Verdict("cron_last_run", UNKNOWN, "doc_cron_unread")
    if facts.cron_minutes_ago is None:
        state = FAIL if facts.cron_late else INFO
        return Verdict("cron_last_run", state, "doc_cron_never", {}, "doc_fix_cron" if facts.cron_late else None)
    values = {"minutes": facts.cron_minutes_ago, "ms": facts.cron_last_ms or 0, "interval": facts.cron_interval}
    if facts.cron_late:
        return Verdict("cron_last_run", FAIL, "doc_cron_late", values, "doc_fix_cron")
    if (facts.cron_last_ms or 0) > facts.cron_interval * 1000:
        return Verdict("cron_last_run", FAIL, "doc_cron_long", values, "doc_fix_cron_seconds",
                       {"seconds": max(facts.cron_interval - CRON_START_SECONDS, 1)})
    return Verdict("cron_last_run", OK, "doc_cron_ran", values)


def webhook(facts: Facts) -> Verdict:
    """Check Telegram's WebhookInfo: set, pointing at PUBLIC_URL, nothing piling up, no current error."""
    info = facts.webhook
    if info is None:
        return Verdict("webhook", UNKNOWN, "doc_webhook_unread")
    url, pending = info.get("url") or "", info.get("pending_update_count") or 0
    values = {"url": url, "pending": pending, "error": info.get("last_error_message") or ""}
    if not url:
        return Verdict("webhook", FAIL, "doc_webhook_none", values, "doc_fix_webhook")
    if facts.public_url and not url.startswith(facts.public_url.rstrip("/") + "/"):
        return Verdict("webhook", FAIL, "doc_webhook_elsewhere", values | {"public_url": facts.public_url},
                       "doc_fix_webhook")
    error_age = info.get("error_age_seconds")
    if values["error"] and error_age is not None and error_age <= WEBHOOK_ERROR_FRESH_SECONDS:
        return Verdict("webhook", FAIL, "doc_webhook_error", values, "doc_fix_webhook_error")
    if pending > PENDING_UPDATES_MAX:
        return Verdict("webhook", FAIL, "doc_webhook_pending", values, "doc_fix_webhook_error")
    return Verdict("webhook", OK, "doc_webhook_ok", values)


def disks(facts: Facts) -> list[Verdict]:
    """Check free space and free inodes of each folder read (the app's, tmp)."""
    found = []
    for path, free_mb, inodes in facts.disks:
        values = {"path": path, "free": free_mb, "inodes": inodes}
        if free_mb is None:
            found.append(Verdict("disk", UNKNOWN, "doc_disk_unread", values))
        elif free_mb < DISK_FREE_MB_MIN or (inodes is not None and inodes < INODES_FREE_MIN):
            found.append(Verdict("disk", FAIL, "doc_disk_low", values | {"min_mb": DISK_FREE_MB_MIN,
                                                                         "min_inodes": INODES_FREE_MIN},
                                 "doc_fix_disk"))
        else:
            found.append(Verdict("disk", OK, "doc_disk_ok" if inodes is not None else "doc_disk_ok_no_inodes",
                                 values))
    return found
