"""The audit log: who did what to which job or setting, and when."""
from datetime import datetime

from sqlalchemy import DateTime, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId

# Actors besides "admin:<telegram id>".
ACTOR_CLI, ACTOR_CRON, ACTOR_SYSTEM = "cli", "cron", "system"
# Actions recorded in the log.
CREATED, CONFIRMED, PAUSED, RESUMED, CANCELLED = "created", "confirmed", "paused", "resumed", "cancelled"
SCHEDULED, RESCHEDULED, SENT_NOW = "scheduled", "rescheduled", "sent_now"
RETRIED, EXPORTED = "retried", "exported"
UNSENT, EDITED = "unsent", "edited"
PINNED, UNPINNED = "pinned", "unpinned"
# Auto-expiry: set or cancelled by an admin; a due pass that created its unsend job (actor cron).
EXPIRY_SET, EXPIRY_CANCELLED, EXPIRED = "expiry_set", "expiry_cancelled", "expired"
SETTING_CHANGED = "setting_changed"
OPTED_OUT, OPTED_IN = "opted_out", "opted_in"  # an operator opted a user out of broadcasts or back in
HELD = "held"  # a pump met a 429 and the job waits it out (one entry per block, never per copy)


class AuditEntry(db.Model):
    """One recorded action; rows are only ever inserted."""

    __tablename__ = "audit_log"
    __table_args__ = (
        # A job view lists its own entries in order: an index range scan.
        Index("ix_audit_log_job", "job_id", "id"),
        MYSQL_TABLE_ARGS,
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    actor: Mapped[str] = mapped_column(String(32), nullable=False)
    action: Mapped[str] = mapped_column(String(32), nullable=False)
    job_id: Mapped[int | None] = mapped_column(BigId)
    detail: Mapped[str | None] = mapped_column(Text)
