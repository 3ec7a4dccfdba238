"""Operator-tunable settings stored as key -> text value."""
from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS


class Setting(db.Model):
    """One overridden setting; defaults and ranges live in app.settings_schema."""

    __tablename__ = "settings"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(255))
    updated_at: Mapped[datetime] = mapped_column(DateTime)
