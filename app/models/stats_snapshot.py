"""The admin statistics as last counted: /stats shows them with their age once counting live is too slow."""
from datetime import datetime

from sqlalchemy import DateTime, Integer, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS

SNAPSHOT_ID = 1


class StatsSnapshot(db.Model):
    """The single snapshot row (id 1): counts and top sources as JSON, when counted and how long it took."""

    __tablename__ = "stats_snapshots"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    taken_at: Mapped[datetime] = mapped_column(DateTime)
    took_ms: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # {"counts": {key: n}, "sources": [{source, users, joined_7d, joined_30d, subscribed}]}
    figures: Mapped[str] = mapped_column(Text)
