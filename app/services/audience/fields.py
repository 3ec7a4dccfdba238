"""Users' custom fields (plan=gold, city=تهران): set and unset in bulk, read per user and per block."""
from __future__ import annotations

from collections.abc import Iterable

from app.clock import utcnow
from app.extensions import db
from app.repository import user_fields as repo
from app.services.audience.bulk import BulkResult, chunks


def set_field(name: str, value: str, user_ids: Iterable[int]) -> BulkResult:
    """Give every id that is a user this value, a chunk per statement, in one transaction; commit; return counts.

    Unchanged: the user had this value already. Ids that are no user are
    counted, never created.
    """
    result, now = BulkResult(), utcnow()
    try:
        for chunk in chunks(user_ids):
            current = repo.known_with_value(name, chunk)
            result.note_unknown(uid for uid in chunk if uid not in current)
            fresh = [uid for uid, old in current.items() if old is None]
            stale = [uid for uid, old in current.items() if old is not None and old != value]
            repo.insert_values(name, value, fresh, now)
            repo.update_values(name, value, stale, now)
            result.changed += len(fresh) + len(stale)
            result.unchanged += len(current) - len(fresh) - len(stale)
    except BaseException:
        db.session.rollback()
        raise
    db.session.commit()
    return result


def unset_field(name: str, user_ids: Iterable[int]) -> BulkResult:
    """Remove the field from every id that is a user, in one transaction; commit and return the counts."""
    result = BulkResult()
    try:
        for chunk in chunks(user_ids):
            current = repo.known_with_value(name, chunk)
            result.note_unknown(uid for uid in chunk if uid not in current)
            removed = repo.delete_values(name, list(current))
            result.changed += removed
            result.unchanged += len(current) - removed
    except BaseException:
        db.session.rollback()
        raise
    db.session.commit()
    return result


def fields_of(user_id: int) -> list[dict]:
    """Return one user's fields with their values and when each was set."""
    rows = repo.fields_of(user_id)
    db.session.commit()
    return [{"name": name, "value": value, "updated": at} for name, value, at in rows]


def name_counts() -> list[dict]:
    """Return every field name with its number of users, the largest first."""
    rows = repo.name_counts()
    db.session.commit()
    return [{"name": name, "users": users} for name, users in rows]


def values_for(user_ids: list[int], names: list[str]) -> dict[int, dict[str, str]]:
    """Return the named fields of a block of recipients, {user id: {name: value}}: one query for the block."""
    return repo.values_for(user_ids, names)
