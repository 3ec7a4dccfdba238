"""What an operator knows about a user beyond Telegram's fields: tags and custom fields."""
import unicodedata
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, ForeignKey, Index, String
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import MYSQL_TABLE_ARGS

TAG_MAX = 64
FIELD_NAME_MAX = 64
FIELD_VALUE_MAX = 255
ZWNJ = "\u200c"
# Arabic letters a Persian keyboard (or a pasted text) may give for the Persian ones.
PERSIAN_LETTERS = str.maketrans({"\u064a": "\u06cc", "\u0643": "\u06a9"})


def fold_tag(raw: str) -> str:
    """Return a tag as it is stored and compared: trimmed, NFC, lower-cased, Arabic yeh and kaf as the Persian ones."""
    return unicodedata.normalize("NFC", raw.strip()).lower().translate(PERSIAN_LETTERS)


def allowed_in_tag(ch: str) -> bool:
    """Tell whether ch may stand in a tag: a letter, mark, digit, `_`, `-` or ZWNJ."""
    return ch in "_-" + ZWNJ or unicodedata.category(ch)[0] in "LM" or unicodedata.category(ch) == "Nd"


def fold_value(raw: str) -> str:
    """Return a field value as it is stored and compared: trimmed and NFC normalised (é typed two ways is one)."""
    return unicodedata.normalize("NFC", raw.strip())


def exact(length: int):
    """A VARCHAR compared byte for byte on both databases (MySQL's default collation folds case and accents)."""
    return String(length).with_variant(mysql.VARCHAR(length, collation="utf8mb4_bin"), "mysql", "mariadb")


class UserTag(db.Model):
    """One tag on one user; (user, tag) is unique, and a tag's users are one index range."""

    __tablename__ = "user_tags"
    __table_args__ = (
        Index("ix_user_tags_tag", "tag", "user_id"),
        MYSQL_TABLE_ARGS,
    )

    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    tag: Mapped[str] = mapped_column(exact(TAG_MAX), primary_key=True)
    # Who set it: admin, cli, csv, deeplink, button, optout.
    origin: Mapped[str] = mapped_column(String(16), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class UserField(db.Model):
    """One custom field of one user (plan=gold, city=تهران); a field's values are one index range."""

    __tablename__ = "user_fields"
    __table_args__ = (
        Index("ix_user_fields_value", "name", "value", "user_id"),
        MYSQL_TABLE_ARGS,
    )

    user_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(exact(FIELD_NAME_MAX), primary_key=True)
    value: Mapped[str] = mapped_column(exact(FIELD_VALUE_MAX), nullable=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class SourceTag(db.Model):
    """A deep link's tag: a user who starts with /start SOURCE gets TAG (each time; idempotent)."""

    __tablename__ = "source_tags"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    # A /start payload is case-sensitive ([A-Za-z0-9_-]{1,64}): byte-exact, like the tag.
    source: Mapped[str] = mapped_column(exact(64), primary_key=True)
    tag: Mapped[str] = mapped_column(exact(TAG_MAX), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)


class ImportRow(db.Model):
    """One staged change of a CSV import (tag added or removed, field set), applied all at once or not at all."""

    __tablename__ = "import_rows"
    __table_args__ = (MYSQL_TABLE_ARGS,)

    import_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(BigInteger, nullable=False)
    # "+" add tag, "-" remove tag, "=" set field.
    op: Mapped[str] = mapped_column(String(1), nullable=False)
    name: Mapped[str] = mapped_column(exact(FIELD_NAME_MAX), nullable=False)
    value: Mapped[str | None] = mapped_column(exact(FIELD_VALUE_MAX))
    created_at: Mapped[datetime] = mapped_column(DateTime, nullable=False)
