"""Drip chains: steps sent to each user some time after a trigger, each (step, user) claimed once ever.

A chain's states (each change one guarded UPDATE in app.repository.chains):
  active -> paused    by an admin; no new claims (jobs already made run as any job)
  paused -> active    resume: claims start again, catching up on what came due meanwhile
  active|paused -> stopped   by an admin; terminal
A delivery row (step, user) is written once, UNIQUE, in the transaction that inserts the step's
job and its items: two cron passes, or a pass killed anywhere, never make a second one.
A delivery's waiting (the daily cap held its step back; never when steps are exempt from the cap):
  sending -> waiting   the pump skips the user's item (frequency_cap) and sets wait_until, next Tehran day
  waiting -> sending   a cron pass at or after wait_until points the row at the step's new job
"""
from datetime import date, datetime

from sqlalchemy import BigInteger, Date, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId

ACTIVE, PAUSED, STOPPED = "active", "paused", "stopped"
STATUSES = (ACTIVE, PAUSED, STOPPED)
# What starts a chain for a user (trigger_value: the source, the tag, the days, the broadcast job id).
JOINED, SOURCE, TAG, INACTIVE, CLICKED = "joined", "source", "tag", "inactive", "clicked"
TRIGGERS = (JOINED, SOURCE, TAG, INACTIVE, CLICKED)
MAX_STEPS = 20


class Chain(db.Model):
    """One drip chain: its trigger, its optional link button, its state."""

    __tablename__ = "chains"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[str] = mapped_column(String(8), nullable=False, default=ACTIVE, index=True)
    trigger_kind: Mapped[str] = mapped_column(String(8), nullable=False)
    trigger_value: Mapped[str | None] = mapped_column(String(64))
    button_text: Mapped[str | None] = mapped_column(String(64))
    button_url: Mapped[str | None] = mapped_column(String(512))
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    # Only triggers at or after this moment (UTC) start the chain; "inactive N days" is a state, taken as it is.
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    # The last Tehran day whose daily digest this chain was taken into (app.services.chains.digest); NULL: none.
    digest_day: Mapped[date | None] = mapped_column(Date)


class ChainStep(db.Model):
    """One step: sent delay_seconds after the trigger (step 1) or after the previous step reached the user."""

    __tablename__ = "chain_steps"
    __table_args__ = (UniqueConstraint("chain_id", "position", name="uq_chain_steps_position"), MYSQL_TABLE_ARGS)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    chain_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chains.id", ondelete="CASCADE"), nullable=False)
    position: Mapped[int] = mapped_column(Integer, nullable=False)  # 1, 2, ...
    delay_seconds: Mapped[int] = mapped_column(Integer, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)  # Telegram HTML, as `broadcast create --text`


class ChainDelivery(db.Model):
    """A (step, user) claimed for its step's job: UNIQUE, so nobody gets a step twice, ever; a capped one waits."""

    __tablename__ = "chain_deliveries"
    __table_args__ = (
        UniqueConstraint("step_id", "user_id", name="uq_chain_deliveries_step_user"),
        Index("ix_chain_deliveries_job", "job_id", "user_id"),  # a step job's population reads its claims
        Index("ix_chain_deliveries_waiting", "step_id", "wait_until"),  # each pass: a step's users whose day came
        MYSQL_TABLE_ARGS,
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    step_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("chain_steps.id", ondelete="CASCADE"),
                                         nullable=False)
    user_id: Mapped[int] = mapped_column(BigInteger, nullable=False)
    job_id: Mapped[int] = mapped_column(BigInteger, nullable=False)  # the (latest) broadcast job that sends it
    claimed_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    # Set when the daily cap skipped this step for the user: claimed again for a new job from this moment
    # (UTC; the next Tehran day's start). NULL: its job sends it (or sent it).
    wait_until: Mapped[datetime | None] = mapped_column(DateTime)
