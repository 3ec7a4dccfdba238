"""Parts of an album an admin sent the wizard, gathered across processes.

Telegram delivers each part of an album as its own update (any order, any
process); each one inserts its row here, and the primary key makes a
redelivered part a no-op. message_id 0 is not a part: it is the marker the
first handled part of an album inserts, so the wizard answers once per album
(a non-admin's album stores only its marker, so it too gets one reply).
"""
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS

ANSWERED_MARKER = 0


class AlbumPart(db.Model):
    """One message of an admin's album (or the album's "answered" marker, message_id 0)."""

    __tablename__ = "album_parts"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    admin_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    media_group_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    message_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    chat_id: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime)
