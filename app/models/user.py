"""Telegram users who started the bot."""
from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Index, String, false, text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS

# main_channel_status values; only chat_member updates and a /start check set them.
CHANNEL_UNKNOWN = "unknown"
CHANNEL_MEMBER = "member"
CHANNEL_NOT_MEMBER = "not_member"


class User(db.Model):
    """A private-chat user; id is the Telegram user id (exceeds 2^31)."""

    __tablename__ = "users"
    __table_args__ = (
        # The audience queries filter on exactly these columns, in id order.
        Index("ix_users_audience", "is_blocked", "opted_out_at", "main_channel_status", "id"),
        # Per-source stats and a source filter (with any other filter) read a range of this index alone.
        Index("ix_users_sources", "start_source", "started_at", "is_blocked", "opted_out_at", "last_seen_at",
              "main_channel_status", "language_code"),
        # The pre-send count of any filter reads this index alone: the subscribed (a range of it when
        # "active within N days"), every other filter column checked in the index, no row lookups.
        Index("ix_users_presend", "is_blocked", "opted_out_at", "last_seen_at", "started_at",
              "main_channel_status", "language_code", "start_source"),
        MYSQL_TABLE_ARGS,
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    first_name: Mapped[str] = mapped_column(String(255), default="", server_default="")
    last_name: Mapped[str | None] = mapped_column(String(255))
    username: Mapped[str | None] = mapped_column(String(64))
    language_code: Mapped[str | None] = mapped_column(String(16))
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    is_blocked: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    blocked_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Set by /stop (or the button under a copy), cleared only by /subscribe; blocking leaves it alone.
    opted_out_at: Mapped[datetime | None] = mapped_column(DateTime)
    # The first /start payload; later payloads never overwrite it.
    start_source: Mapped[str | None] = mapped_column(String(64))
    main_channel_status: Mapped[str] = mapped_column(
        String(16), default=CHANNEL_UNKNOWN, server_default=text(f"'{CHANNEL_UNKNOWN}'")
    )
    main_channel_checked_at: Mapped[datetime | None] = mapped_column(DateTime)
    started_at: Mapped[datetime] = mapped_column(DateTime)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime)
