"""Admin wizard state, kept in the database because Passenger runs many processes."""
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS


class AdminState(db.Model):
    """Which wizard step an admin is in, and the draft so far (JSON)."""

    __tablename__ = "admin_states"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    admin_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    step: Mapped[str] = mapped_column(String(32))
    draft: Mapped[str] = mapped_column(Text, default="{}")
    updated_at: Mapped[datetime] = mapped_column(DateTime)
