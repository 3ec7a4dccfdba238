"""Tagging users: in bulk (CLI, admin command, a segment's ids), one at a time (deep link, button, opt-out)."""
from __future__ import annotations

from collections.abc import Iterable

from app.clock import utcnow
from app.extensions import db
from app.models import names
from app.repository import user_tags as repo
from app.services.audience.bulk import BulkResult, chunks

# Who set a tag (user_tags.origin).
ORIGIN_ADMIN, ORIGIN_CLI, ORIGIN_CSV = "admin", "cli", "csv"
ORIGIN_DEEPLINK, ORIGIN_BUTTON, ORIGIN_OPTOUT = "deeplink", "button", "optout"
OPTED_OUT, RESUBSCRIBED = "opted_out", "resubscribed"


def add_tag(tag: str, user_ids: Iterable[int], origin: str, commit: bool = True) -> BulkResult:
    """Tag every id that is a user, a chunk per statement, in one transaction; commit and return the counts.

    user_ids may be any iterable (a list, a CSV stream, a segment's query):
    it is read a chunk at a time. Ids that are no user are counted, never
    created. Idempotent: a user who has the tag counts as unchanged. The
    seam for `--where SEGMENT`: pass the segment's ids.
    """
    result, now = BulkResult(), utcnow()
    try:
        for chunk in chunks(user_ids):
            known, already = repo.known_with_tag(tag, chunk)
            result.note_unknown(uid for uid in chunk if uid not in known)
            added = repo.insert_ignore(tag, [uid for uid in chunk if uid in known and uid not in already], origin,
                                       now)
            result.changed += added
            result.unchanged += len(known) - added
    except BaseException:
        db.session.rollback()
        raise
    if commit:  # the bot's handler leaves the commit to the update's own transaction
        db.session.commit()
    return result


def remove_tag(tag: str, user_ids: Iterable[int], commit: bool = True) -> BulkResult:
    """Take tag off every id that is a user, in one transaction; commit and return the counts."""
    result = BulkResult()
    try:
        for chunk in chunks(user_ids):
            known, _ = repo.known_with_tag(tag, chunk)
            result.note_unknown(uid for uid in chunk if uid not in known)
            removed = repo.delete_tag(tag, [uid for uid in chunk if uid in known])
            result.changed += removed
            result.unchanged += len(known) - removed
    except BaseException:
        db.session.rollback()
        raise
    if commit:  # the bot's handler leaves the commit to the update's own transaction
        db.session.commit()
    return result


def tag_user(user_id: int, tag: str, origin: str) -> bool:
    """Tag one known user inside the caller's transaction (no commit); True when the tag is new.

    tag comes from storage (a deep link's, a button's): one the tag rule
    refuses, kept as an older rule saved it, tags no one, so no user ever
    carries a tag `users tag remove` cannot name.
    """
    try:
        tag = names.tag(tag)
    except names.BadName:
        return False
    return repo.insert_ignore(tag, [user_id], origin, utcnow()) > 0


def untag_user(user_id: int, tag: str) -> bool:
    """Take a tag off one user inside the caller's transaction (no commit); True when it was there."""
    return repo.delete_tag(tag, [user_id]) > 0


def mark_opted_out(user_id: int, opted_out: bool) -> None:
    """Keep the opt-out tags in step with the choice, in the opt-out's own transaction.

    Opting out adds `opted_out` (and drops `resubscribed`); coming back drops
    `opted_out` and adds `resubscribed`, so the tags say what the user chose last.
    """
    if opted_out:
        tag_user(user_id, OPTED_OUT, ORIGIN_OPTOUT)
        untag_user(user_id, RESUBSCRIBED)
    else:
        untag_user(user_id, OPTED_OUT)
        tag_user(user_id, RESUBSCRIBED, ORIGIN_OPTOUT)


def tags_of(user_id: int) -> list[dict]:
    """Return one user's tags with their origin and time."""
    rows = repo.tags_of(user_id)
    db.session.commit()
    return [{"tag": tag, "origin": origin, "since": created} for tag, origin, created in rows]


def tag_counts() -> list[dict]:
    """Return every tag with its number of users, the largest first."""
    rows = repo.tag_counts()
    db.session.commit()
    return [{"tag": tag, "users": users} for tag, users in rows]
