"""Recurring broadcasts: a stored draft and a rule, and the occurrences each one made or skipped.

A recurring broadcast's states (each change one guarded UPDATE in app.repository.recurring):
  active  -> active   an occurrence came: next_at moves on (WHERE next_at = the occurrence),
                      in the transaction that records it and, if sent, inserts its job
  active  -> ended    its last occurrence came (end date or count reached); next_at NULL
  active  -> paused   by an admin; no occurrence while paused
  paused  -> active   resume: next_at becomes the first occurrence after now
  active|paused -> stopped   by an admin; terminal, like ended
Jobs already made are ordinary jobs: stopping the series never touches them.
"""
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId

ACTIVE, PAUSED, STOPPED, ENDED = "active", "paused", "stopped", "ended"
STATUSES = (ACTIVE, PAUSED, STOPPED, ENDED)
# An occurrence's outcome: its job was made (job_id), skipped (missed under "skip", or collapsed into a later
# one), or nobody was in the audience then.
MADE, SKIPPED, EMPTY = "made", "skipped", "empty"


class RecurringBroadcast(db.Model):
    """One recurring broadcast: what to send (the wizard's draft JSON), when (the rule), and how far it got."""

    __tablename__ = "recurring_broadcasts"
    __table_args__ = (
        # Cron's "which series are due" is one range of this index.
        Index("ix_recurring_broadcasts_due", "status", "next_at"),
        MYSQL_TABLE_ARGS,
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    status: Mapped[str] = mapped_column(String(8), nullable=False, default=ACTIVE)
    rule: Mapped[str] = mapped_column(String(64), nullable=False)  # canonical text (schedule/recurrence.py)
    draft: Mapped[str] = mapped_column(Text, nullable=False)  # jobs/draft.py's JSON: content, audience, options
    # The segment rule it sends to (app.models.segment_rule.Target JSON), fixed at creation as a job's is;
    # NULL: the draft's plain audience.
    audience_rule: Mapped[str | None] = mapped_column(Text)
    if_missed: Mapped[str] = mapped_column(String(4), nullable=False)  # "send" or "skip"
    # Occurrences must come before until_at (the end date's Tehran midnight, UTC); at most count_limit of them.
    until_at: Mapped[datetime | None] = mapped_column(DateTime)
    count_limit: Mapped[int | None] = mapped_column(Integer)
    next_at: Mapped[datetime | None] = mapped_column(DateTime)  # UTC; NULL once stopped or ended
    # Occurrences so far (made, skipped or empty) and how many of them made a job.
    occurrences: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    made_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    lang: Mapped[str] = mapped_column(String(8), nullable=False, default="fa", server_default="fa")
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class RecurringOccurrence(db.Model):
    """One occurrence of a series: its key (series, time) exists once, so no occurrence is ever made twice."""

    __tablename__ = "recurring_occurrences"
    __table_args__ = (
        Index("ix_recurring_occurrences_job", "job_id"),  # a job view names its series
        MYSQL_TABLE_ARGS,
    )

    recurring_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("recurring_broadcasts.id", ondelete="CASCADE"), primary_key=True)
    occurs_at: Mapped[datetime] = mapped_column(DateTime, primary_key=True)
    outcome: Mapped[str] = mapped_column(String(8), nullable=False)
    job_id: Mapped[int | None] = mapped_column(BigInteger)
    recorded_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
