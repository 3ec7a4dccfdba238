"""Saved segments: a named audience rule that broadcasts and tag commands can name."""
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId
from app.models.user_data import exact

SEGMENT_NAME_MAX = 64


class Segment(db.Model):
    """A named rule (JSON in `rule`); a job copies the rule it used, so a later edit never changes a sent job."""

    __tablename__ = "segments"
    __table_args__ = (
        UniqueConstraint("name", name="uq_segments_name"),
        MYSQL_TABLE_ARGS,
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(exact(SEGMENT_NAME_MAX), nullable=False)
    rule: Mapped[str] = mapped_column(Text, nullable=False)
    created_by: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
