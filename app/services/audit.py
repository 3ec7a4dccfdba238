"""The audit log as callers see it: actor names, recording inside an action, listing."""
from __future__ import annotations

from app.clock import utcnow
from app.models.audit import (
    ACTOR_CLI,
    ACTOR_CRON,
    ACTOR_SYSTEM,
    CANCELLED,
    CONFIRMED,
    CREATED,
    EDITED,
    EXPIRED,
    EXPIRY_CANCELLED,
    EXPIRY_SET,
    EXPORTED,
    HELD,
    OPTED_IN,
    OPTED_OUT,
    PAUSED,
    PINNED,
    RESCHEDULED,
    RESUMED,
    RETRIED,
    SCHEDULED,
    SENT_NOW,
    SETTING_CHANGED,
    UNPINNED,
    UNSENT,
    AuditEntry,
)
from app.models.base import fit
from app.repository import audit_log

__all__ = ["ACTOR_CLI", "ACTOR_CRON", "ACTOR_SYSTEM", "CANCELLED", "CONFIRMED", "CREATED", "EXPORTED", "HELD",
           "OPTED_IN", "OPTED_OUT", "PAUSED",
           "RESCHEDULED", "RESUMED", "RETRIED", "SCHEDULED", "SENT_NOW", "SETTING_CHANGED", "UNSENT", "EDITED",
           "PINNED", "UNPINNED", "EXPIRY_SET", "EXPIRY_CANCELLED", "EXPIRED",
           "admin_actor", "entries", "record"]
# Details are short (a reason, "key: old -> new", a time); this bounds one runaway text.
DETAIL_LIMIT = 2000


def admin_actor(user_id: int) -> str:
    """Return the actor string of a Telegram admin ("admin:123")."""
    return f"admin:{user_id}"


def record(actor: str | None, action: str, job_id: int | None = None, detail: str | None = None) -> None:
    """Add an entry to the current transaction; nothing when no actor is given (engine-internal calls)."""
    if actor:
        detail = detail[:DETAIL_LIMIT] if detail else None
        audit_log.insert(utcnow(), fit(AuditEntry.actor, actor), action, job_id, detail)


def entries(job_id: int | None = None, limit: int = 50) -> list[dict]:
    """Return entries as JSON-safe dicts: a job's newest `limit` oldest first, or the newest of all first."""
    rows = audit_log.for_job(job_id, limit) if job_id is not None else audit_log.newest(limit)
    return [{"id": r.id, "at": r.at.isoformat(timespec="seconds") + "Z", "actor": r.actor, "action": r.action,
             "job_id": r.job_id, "detail": r.detail} for r in rows]
