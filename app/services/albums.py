"""Gather an admin's album: each part is stored as it arrives; the first handled part answers."""
from __future__ import annotations

from datetime import timedelta

from app.clock import utcnow
from app.models.album_part import ANSWERED_MARKER
from app.repository import album_parts

# Parts are only needed until the admin picks an audience (the preview then
# fixes the ids in the draft); older rows are dropped when a new wizard starts.
KEEP = timedelta(days=7)


def add_part(admin_id: int, media_group_id: str, message_id: int, chat_id: int) -> bool:
    """Store one part; True when this call is the first to answer for the album.

    The part and the album's "answered" marker are inserted in the caller's
    transaction: of parts handled concurrently by several processes exactly
    one inserts the marker, and if its transaction rolls back the marker goes
    with it, so a later part answers instead.
    """
    now = utcnow()
    album_parts.insert_ignore(admin_id, media_group_id, message_id, chat_id, now)
    return album_parts.insert_ignore(admin_id, media_group_id, ANSWERED_MARKER, chat_id, now)


def first_part_of_strangers_album(user_id: int, media_group_id: str, chat_id: int) -> bool:
    """Tell whether this part is the first handled of a non-admin's album (which gets the one reply).

    Only the album's marker row is inserted (the parts are of no use): of
    parts handled concurrently by several processes exactly one inserts it,
    as for an admin's album.
    """
    return album_parts.insert_ignore(user_id, media_group_id, ANSWERED_MARKER, chat_id, utcnow())


def forget_all_old(limit: int | None = None) -> int:
    """Drop everyone's album rows older than KEEP, at most limit (cron: non-admins never start a wizard)."""
    return album_parts.delete_all_older_than(utcnow() - KEEP, limit)


def forget_old(admin_id: int) -> int:
    """Drop the admin's album rows older than KEEP (called when a wizard starts, not while parts arrive).

    Not done while parts are stored: on MySQL a range DELETE over the admin's
    rows would wait on a concurrent part's insert while that part waits on
    the marker this transaction holds, a deadlock.
    """
    return album_parts.delete_older_than(admin_id, utcnow() - KEEP)


def part_ids(admin_id: int, media_group_id: str) -> list[int]:
    """Return the message ids gathered so far for the album, ascending."""
    return album_parts.part_ids(admin_id, media_group_id)
