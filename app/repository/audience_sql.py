"""A plain audience as SQL: the base audience and its filters over users (subscribed, not blocked)."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import and_, false, not_, or_, true

from app.clock import utcnow
from app.models.audience import Audience
from app.models.user import CHANNEL_MEMBER, User


def audience_clause(aud: Audience, now: datetime | None = None) -> list:
    """Return the WHERE selecting an audience's users; segments build on it (app.repository.segment_sql)."""
    # Opted-out users are no audience's members: every count and every job leaves them out alike.
    # "= false", not "IS FALSE": MariaDB reads an index range only for the former (is_blocked is NOT NULL).
    clause = [User.is_blocked == false(), User.opted_out_at.is_(None)]
    if aud.base == "members":
        clause.append(User.main_channel_status == CHANNEL_MEMBER)
    elif aud.base == "non_members":
        # Unknown counts as "not known to be a member": they get the invitation.
        clause.append(User.main_channel_status != CHANNEL_MEMBER)
    if aud.langs:
        clause.append(or_(*(_lang_is(lang) for lang in aud.langs)))
    now = now or utcnow()
    if aud.active_days is not None:
        clause.append(User.last_seen_at >= now - timedelta(days=aud.active_days))
    if aud.joined_days is not None:
        clause.append(User.started_at >= now - timedelta(days=aud.joined_days))
    if aud.sources:
        clause.append(User.start_source.in_(aud.sources))
    return clause


def unsubscribed():
    """Return the WHERE of users no audience holds (blocked or opted out): exactly NOT the first two above."""
    # is_blocked is NOT NULL and IS NULL is never NULL, so every row is in exactly one of the two. Spelled as two
    # ranges of ix_users_audience (is_blocked, opted_out_at, ...): MariaDB then reads these few users first.
    return or_(User.is_blocked == true(), and_(User.is_blocked == false(), User.opted_out_at.is_not(None)))


def _lang_is(lang: str):
    """Return the condition for one language choice (LIKE is case-insensitive on both databases)."""
    if lang == "other":
        code = User.language_code
        return or_(code.is_(None), and_(not_(code.like("fa%")), not_(code.like("en%"))))
    return User.language_code.like(f"{lang}%")
