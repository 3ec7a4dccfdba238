"""Broadcast jobs and their per-recipient items.

Job states (each transition is one guarded UPDATE in app.repository.broadcast_jobs):
  draft   -> queued     create_job: items populated in the same transaction
  draft   -> scheduled  create_job with a send time (send_at, UTC): items populated as for queued,
                        so the audience is the one at scheduling time
  scheduled -> scheduled  reschedule: a new send_at, clearing missed_at (until it starts)
  scheduled -> queued   release_due: cron, once send_at has come and is at most
                        schedule_grace_minutes old; or send_now, by an admin (a missed job)
  scheduled -> scheduled (missed_at set)  mark_missed: cron found send_at more than
                        schedule_grace_minutes old (the site was down); the admins are asked
                        once (send now / cancel) and the job waits for their answer
  queued  -> running    promote: takes the single active slot (one sending job bot-wide)
  queued|running -> paused   pause: by an admin, the circuit breaker, a refused
                             token (401) or the paid-message cap; frees the slot
  running -> paused (pause_kind 'quiet')   quiet hours began and the job is not urgent
  paused (pause_kind 'quiet') -> queued    cron, once quiet hours are over (never an admin's pause)
  paused  -> running    resume, when the active slot is free
  paused  -> queued     resume while another job holds the slot
  running -> completed  complete_if_done: no item pending or in flight
  draft|scheduled|queued|running|paused -> cancelled   cancel, by an admin
  paused  -> cancelled  retry of the paused job, in the retry's own transaction
                        (app.services.broadcast.actions.retry: its pending items go to the new job)
Terminal states (completed, cancelled) never change again.

Action jobs (kind 'unsend', 'edit', 'pin' or 'unpin'; app.services.broadcast.actions) go through the same states
and the same pump; their items are the source job's sent items with its message_id (and an
album's message_ids), and
per kind the counters mean:
  sent_count     unsend: copies deleted            edit: copies edited (or already so)
                 pin / unpin: copies pinned / unpinned (an album: its first part)
  gone_count     the copy no longer exists (the user deleted it, or an earlier unsend did)
  too_old_count  unsend: older than 48 hours, Telegram refuses to delete it
  skipped_count  the recipient blocked the bot or is gone
  failed_count   Telegram refused for another reason; unknown_count: no verdict after retries

Item states (app.repository.broadcast_claims):
  pending -> sending    fenced by the lease, just before the request goes out
  sending -> sent | failed | skipped | unknown   outcome recorded under the lease
                        (sent keeps the recipient's message_id)
  sending -> pending    certainly not sent: a 429, Telegram unreachable, the pump's
                        budget ended, the token refused, the breaker opened, or the
                        job was cancelled/paused while the send waited out a 429
  failed  -> pending    the breaker judged a streak of failures not the recipients' fault
  pending -> skipped    the frequency cap: the recipient already got max_broadcasts_per_user_per_day
                        broadcasts today (Tehran), error 'frequency_cap', at claim time under the lease
  sending -> unknown    the pump holding it died: counted by the next lease holder
                        (running job) or by cron (cancelled/paused job, lease dead)
  sending -> pending    (unsend, edit, unpin) the pump holding it died: a delete, an edit or an
                        unpin is safe to repeat, so the next lease holder does it again (a pin
                        is not: its items become unknown, as a send's do)
  sending -> gone | too_old   (action jobs) outcomes of a delete or edit
"""
from datetime import datetime
from enum import Enum

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.audience import AUDIENCES  # noqa: F401  (re-exported: callers import it from here)
from app.models.base import MYSQL_TABLE_ARGS, BigId, PreciseDateTime


class StrValueEnum(str, Enum):
    """A str enum that prints and formats as its stored value on every Python >= 3.10 (enum.StrEnum is 3.11+)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class JobStatus(StrValueEnum):
    """A job's status (its value is what the database stores): terminal never changes, active is in line to send."""

    DRAFT = "draft", False, False
    SCHEDULED = "scheduled", False, False
    QUEUED = "queued", False, True
    RUNNING = "running", False, True
    PAUSED = "paused", False, True
    COMPLETED = "completed", True, False
    CANCELLED = "cancelled", True, False

    def __new__(cls, value: str, terminal: bool, active: bool):
        member = str.__new__(cls, value)
        member._value_ = value
        member.terminal = terminal
        member.active = active
        return member


DRAFT, QUEUED, RUNNING, PAUSED = JobStatus.DRAFT, JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.PAUSED
SCHEDULED = JobStatus.SCHEDULED
COMPLETED, CANCELLED = JobStatus.COMPLETED, JobStatus.CANCELLED
TERMINAL = tuple(s for s in JobStatus if s.terminal)
ACTIVE = tuple(s for s in JobStatus if s.active)


class ItemStatus(StrValueEnum):
    """An item's status (its value is what the database stores) and the job counter that counts it."""

    PENDING = "pending", None
    SENDING = "sending", None
    SENT = "sent", "sent_count"
    FAILED = "failed", "failed_count"
    SKIPPED = "skipped", "skipped_count"
    UNKNOWN = "unknown", "unknown_count"
    # Action items only: the copy was already gone, or older than Telegram lets a bot delete (48 h).
    GONE = "gone", "gone_count"
    TOO_OLD = "too_old", "too_old_count"

    def __new__(cls, value: str, counter: str | None):
        member = str.__new__(cls, value)
        member._value_ = value
        member.counter = counter  # the BroadcastJob column; None while the item is not final
        return member


PENDING, SENDING, SENT = ItemStatus.PENDING, ItemStatus.SENDING, ItemStatus.SENT
ITEM_FAILED, SKIPPED, UNKNOWN = ItemStatus.FAILED, ItemStatus.SKIPPED, ItemStatus.UNKNOWN
GONE, TOO_OLD = ItemStatus.GONE, ItemStatus.TOO_OLD
# The statuses an item ends in: each one counted by its own job counter.
FINAL_STATUSES = tuple(s for s in ItemStatus if s.counter)

CONTENT_COPY, CONTENT_TEXT, CONTENT_ALBUM = "copy", "text", "album"
# What a job does to its recipients: send the message, or act on the copies another job sent.
KIND_SEND, KIND_UNSEND, KIND_EDIT = "send", "unsend", "edit"
KIND_PIN, KIND_UNPIN = "pin", "unpin"
ACTION_KINDS = (KIND_UNSEND, KIND_EDIT, KIND_PIN, KIND_UNPIN)
# Actions safe to repeat after a lost answer. A pin is not: a second pin posts a second
# "pinned" notice, so its lost answers and a dead pump's items end unknown, as a send's do.
REPEATABLE_KINDS = (KIND_UNSEND, KIND_EDIT, KIND_UNPIN)
# pause_kind of a job the engine paused for quiet hours: cron resumes it once they end.
QUIET_PAUSE = "quiet"
# The error an item skipped by the frequency cap keeps (in the ledger and the export).
FREQUENCY_CAP = "frequency_cap"


class BroadcastJob(db.Model):
    """One broadcast: what to send, to whom, its state, lease and counters."""

    __tablename__ = "broadcast_jobs"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    status: Mapped[str] = mapped_column(String(16), index=True, default=DRAFT)
    audience: Mapped[str] = mapped_column(String(16))
    # Filters on top of the audience (app.models.audience); NULL means "no filter".
    audience_langs: Mapped[str | None] = mapped_column(String(16))
    audience_active_days: Mapped[int | None] = mapped_column(Integer)
    audience_joined_days: Mapped[int | None] = mapped_column(Integer)
    # Comma-joined /start sources (a payload has no comma); NULL: no source filter.
    audience_sources: Mapped[str | None] = mapped_column(Text)
    # A segment job's whole target as created (app.models.segment_rule.Target JSON: the rule, the excluded
    # segments' rules); the columns above hold its base audience. NULL: no segment nor exclusion.
    audience_rule: Mapped[str | None] = mapped_column(Text)
    content_type: Mapped[str] = mapped_column(String(8))
    from_chat_id: Mapped[int | None] = mapped_column(BigInteger)
    source_message_id: Mapped[int | None] = mapped_column(BigInteger)
    # An album: its parts' message ids as a JSON array, ascending (copyMessages keeps that order).
    source_message_ids: Mapped[str | None] = mapped_column(Text)
    text: Mapped[str | None] = mapped_column(Text)
    # Language variants (app.services.broadcast.content.variants): a JSON object, language code -> text (a text
    # broadcast) or caption (a copied media message); NULL: one content for everyone.
    variants: Mapped[str | None] = mapped_column(Text)
    parse_mode: Mapped[str | None] = mapped_column(String(16))
    button_text: Mapped[str | None] = mapped_column(String(64))
    button_url: Mapped[str | None] = mapped_column(String(512))
    # "Tag on tap": a callback button that tags whoever presses it and answers them (app.services.audience.tap).
    tap_text: Mapped[str | None] = mapped_column(String(64))
    tap_tag: Mapped[str | None] = mapped_column(String(64))
    tap_answer: Mapped[str | None] = mapped_column(String(200))
    # Verified presses, and the users they tagged (a second press, or a user already tagged, adds none).
    tap_presses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    tap_tagged: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Rows of url, copy, tap and menu buttons (content/keyboard.py JSON; counters in broadcast_buttons). NULL: none.
    keyboard: Mapped[str | None] = mapped_column(Text)
    batch_size: Mapped[int] = mapped_column(Integer, default=25)
    total_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    sent_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    failed_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    skipped_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    unknown_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Action jobs only (see the module docstring): copies already gone, and copies too old to delete.
    gone_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    too_old_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Clicks on the tracked button (services/broadcast/reporting/clicks.py): every valid one, and who clicked.
    clicks_total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    clicks_unique: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Whether its copies' link buttons carry tracked links (PUBLIC_URL set when it was made: clicks.tracked);
    # False: clicks cannot be counted, so none is shown as 0; NULL: made before this was recorded.
    links_tracked: Mapped[bool | None] = mapped_column(Boolean)
    # Recipients skipped by the frequency cap (counted in skipped_count too), and users its opt-out button opted out.
    capped_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    unsubscribed_count: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    kind: Mapped[str] = mapped_column(String(8), default=KIND_SEND, server_default=KIND_SEND)
    # An action job's source: the broadcast whose copies it deletes or edits.
    source_job_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    lease_token: Mapped[str | None] = mapped_column(String(36))
    lease_expires_at: Mapped[datetime | None] = mapped_column(PreciseDateTime)
    not_before: Mapped[datetime | None] = mapped_column(PreciseDateTime)
    pause_reason: Mapped[str | None] = mapped_column(String(255))
    # 1 while running, else NULL: the unique index lets only one job send bot-wide.
    active_slot: Mapped[int | None] = mapped_column(Integer, unique=True)
    # When a scheduled job is due (UTC); missed_at: when cron found it missed and asked the admins.
    send_at: Mapped[datetime | None] = mapped_column(DateTime)
    missed_at: Mapped[datetime | None] = mapped_column(DateTime)
    paid: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Send options: disable_notification and protect_content on every delivery.
    silent: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The opt-out button under each copy (setting broadcast_optout_button when the draft was made; never albums).
    optout_button: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    protect: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Sent through quiet hours (app.services.broadcast.schedule.quiet_hours): never held or paused by them.
    urgent: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Why a paused job paused, when the engine resumes it on its own: QUIET_PAUSE; NULL for every other pause.
    pause_kind: Mapped[str | None] = mapped_column(String(16))
    paid_limit: Mapped[int | None] = mapped_column(Integer)
    progress_chat_id: Mapped[int | None] = mapped_column(BigInteger)
    progress_message_id: Mapped[int | None] = mapped_column(BigInteger)
    progress_lang: Mapped[str] = mapped_column(String(8), default="fa", server_default="fa")
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    # The job this one re-sends to (its failed / unsent items); users it holds are never retried again.
    retry_of: Mapped[int | None] = mapped_column(BigInteger, index=True)
    # The drip-chain step this job sends (app.services.chains): its recipients are that step's new claims.
    chain_step_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    # Auto-expiry (services/broadcast/actions/expiry.py): delete every copy this many seconds after
    # its own sent_at; expire_at is when cron next looks (NULL: nothing left to expire), claimed by a guarded UPDATE.
    expire_after: Mapped[int | None] = mapped_column(Integer)
    expire_at: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    # An A/B test (services/broadcast/ab): versions A..E in `variants`, sent to ab_share % of the audience; the
    # winner goes to the rest ab_wait seconds after the test completed. ab_state: testing -> asked (no clear
    # leader: the admins were told once) -> sent (the winner job made, or nobody left); ab_winner: its letter.
    ab_share: Mapped[int | None] = mapped_column(Integer)
    ab_wait: Mapped[int | None] = mapped_column(Integer)
    ab_state: Mapped[str | None] = mapped_column(String(8), index=True)
    ab_winner: Mapped[str | None] = mapped_column(String(1))
    # A version's own buttons, copied media and goal button, beyond its text (content/ab_content.py JSON). NULL: none.
    ab_content: Mapped[str | None] = mapped_column(Text)
    # A winner job's test (the job whose versions it chose among).
    ab_of: Mapped[int | None] = mapped_column(BigInteger, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)

    @property
    def processed_count(self) -> int:
        """Items with a final outcome."""
        return sum(getattr(self, s.counter) for s in FINAL_STATUSES)

    @property
    def pending_count(self) -> int:
        """Items not yet final (pending or in flight)."""
        return max(self.total_count - self.processed_count, 0)


class BroadcastJobItem(db.Model):
    """One recipient of one job; no message body is stored per recipient."""

    __tablename__ = "broadcast_job_items"
    __table_args__ = (
        # Population may run twice; the database refuses a second row per user.
        UniqueConstraint("job_id", "user_id", name="uq_broadcast_job_items_job_user"),
        # "Next pending items of job J in id order" is an index range scan.
        Index("ix_broadcast_job_items_next", "job_id", "status", "id"),
        MYSQL_TABLE_ARGS,
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("broadcast_jobs.id", ondelete="CASCADE"), nullable=False
    )
    user_id: Mapped[int] = mapped_column(BigInteger, nullable=False)
    status: Mapped[str] = mapped_column(String(8), default=PENDING, nullable=False)
    error: Mapped[str | None] = mapped_column(String(255))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime)
    # The recipient's copy (Telegram's message_id in their chat), kept when the item is recorded sent.
    message_id: Mapped[int | None] = mapped_column(BigInteger)
    # An album: the recipient's copy of every part delivered, a JSON array (copyMessages may skip a part).
    message_ids: Mapped[str | None] = mapped_column(Text)
    # The recipient's first click on the tracked button (later clicks only count on the job).
    clicked_at: Mapped[datetime | None] = mapped_column(DateTime)
    # When this job's unsubscribe button opted the recipient out and was counted (once per (job, user) ever).
    unsubscribed_at: Mapped[datetime | None] = mapped_column(DateTime)
    # The language variant this recipient gets (set at population from their language code); NULL: the default.
    # An A/B test's items hold their version's letter (A..E), set once at population and copied by a retry.
    variant: Mapped[str | None] = mapped_column(String(8))
