"""Per-button counters of a broadcast's keyboard, and which recipients clicked which button.

BroadcastButton: one row per button of a job's keyboard (position: its
place in reading order, from 1; variant: "" for the job's keyboard, an A/B
version's letter for that version's own keyboard), inserted with the job; a
click or press moves its row by one guarded UPDATE, so a button the job does
not have counts nothing. BroadcastItemClick: one row per (recipient's item,
button) they clicked at least once, inserted ignoring duplicates, so an A/B
test can rank its versions by the recipients who clicked one chosen button.
"""
from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId


class BroadcastButton(db.Model):
    """One button of one job's keyboard (or of one A/B version's own keyboard) and its counters."""

    __tablename__ = "broadcast_buttons"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    job_id: Mapped[int] = mapped_column(BigId, ForeignKey("broadcast_jobs.id", ondelete="CASCADE"),
                                        primary_key=True, autoincrement=False)
    variant: Mapped[str] = mapped_column(String(1), primary_key=True, default="", server_default="")
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    # Every click on its tracked link, and the recipients whose first click (on any button) was this one.
    clicks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    first_clicks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Verified presses of a tap or menu button.
    presses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class BroadcastItemClick(db.Model):
    """A recipient (their item) clicked this button of their copy at least once."""

    __tablename__ = "broadcast_item_clicks"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    item_id: Mapped[int] = mapped_column(BigId, ForeignKey("broadcast_job_items.id", ondelete="CASCADE"),
                                         primary_key=True, autoincrement=False)
    position: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
