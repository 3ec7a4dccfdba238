"""Per-button counters of a broadcast's keyboard: clicks on each tracked link, presses on each tap or menu button.

One row per button of a job's keyboard (position: its place in reading
order, from 1), inserted with the job; a click or press moves its row by
one guarded UPDATE, so a button the job does not have counts nothing.
"""
from sqlalchemy import ForeignKey, Integer
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId


class BroadcastButton(db.Model):
    """One button of one job's keyboard and its counters."""

    __tablename__ = "broadcast_buttons"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    job_id: Mapped[int] = mapped_column(BigId, ForeignKey("broadcast_jobs.id", ondelete="CASCADE"),
                                        primary_key=True, autoincrement=False)
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    # Every click on its tracked link, and the recipients whose first click (on any button) was this one.
    clicks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    first_clicks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Verified presses of a tap or menu button.
    presses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
