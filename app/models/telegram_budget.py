"""The bot-wide Telegram budget every process shares: GCRA lanes and per-chat pace."""
from sqlalchemy import BigInteger, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS

# Lanes: 'free' is the bot's ~30/s; 'paid' is allow_paid_broadcast's separate budget.
FREE = "free"
PAID = "paid"
LANES = (FREE, PAID)


class TelegramBudget(db.Model):
    """One lane's shared slot timeline, in microseconds on the database's clock.

    ``next_us`` is the GCRA theoretical arrival time (when the next slot is
    due); ``hold_until_us`` is a 429's retry_after, which holds every process.
    ``owner_id`` is the booker whose window reaches furthest (a pump), busy
    until ``owner_until_us`` (its last slot plus its calls' answer wait); every
    other booker's calls, a displaced owner's included, may be unanswered until
    ``others_until_us``, all of them ``others_id``'s (0: several). A process
    that owns the lane and sees no one else busy needs no re-read of the hold.
    """

    __tablename__ = "telegram_budget"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    lane: Mapped[str] = mapped_column(String(16), primary_key=True)
    next_us: Mapped[int] = mapped_column(BigInteger, default=0)
    hold_until_us: Mapped[int] = mapped_column(BigInteger, default=0)
    owner_id: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    owner_until_us: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    others_id: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    others_until_us: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class TelegramChatPace(db.Model):
    """When a chat may next receive a message (µs, database clock), across processes."""

    __tablename__ = "telegram_chat_pace"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    next_us: Mapped[int] = mapped_column(BigInteger, default=0)
