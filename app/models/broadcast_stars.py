"""What a paid broadcast cost in Stars, as the bot's balance (getMyStarBalance) fell while it sent.

One row per paid send job, written only by the pump holding the job's lease.
A run opens a stretch with the balance read before its first paid copy
(opened_balance) and closes it once the job no longer runs (done, paused,
cancelled), adding how far the balance fell to spent; a resumed job opens a
new stretch, so a top-up while it was paused is never counted as negative
spend. All amounts are nanostars (1 Star = 10^9), exact as Telegram gives them.
"""
from sqlalchemy import BigInteger, ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS, BigId


class BroadcastStars(db.Model):
    """A paid job's Stars: our estimate, the balance its open stretch began with, what Telegram took."""

    __tablename__ = "broadcast_stars"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    job_id: Mapped[int] = mapped_column(BigId, ForeignKey("broadcast_jobs.id", ondelete="CASCADE"),
                                        primary_key=True, autoincrement=False)
    # The likely cost of the whole job (estimate.paid_messages), fixed at its first start.
    estimate: Mapped[int] = mapped_column(BigInteger, nullable=False)
    # The balance when the open stretch began; NULL: no stretch open (the next run reads the balance first).
    opened_balance: Mapped[int | None] = mapped_column(BigInteger)
    # The balance's fall over every closed stretch: what Telegram took for this job's copies.
    spent: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0, server_default="0")
