"""Webhook update ids already handled, for idempotency."""
from datetime import datetime

from sqlalchemy import BigInteger, DateTime
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS


class ProcessedUpdate(db.Model):
    """An update_id whose handling committed; Telegram redeliveries are ignored."""

    __tablename__ = "processed_updates"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    update_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    processed_at: Mapped[datetime] = mapped_column(DateTime, index=True)
