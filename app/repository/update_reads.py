"""A webhook update's one read: every stored setting and its sender's users row, in one statement."""
from __future__ import annotations

from sqlalchemy import BigInteger, String, literal, select

from app.extensions import db
from app.models import Setting
from app.models.user import User


def settings_and_user(user_id: int | None) -> tuple[list[tuple[str, str | None]], User | None]:
    """Return the stored settings' (key, value) pairs and the user's row (None if unknown), loaded in the session.

    One SELECT: a one-row anchor carrying the user id, LEFT JOINed to the
    user's row and to every settings row (no key is empty), so an empty
    settings table or an unknown user still reads as one row. The user's
    row lands in the session's identity map, where the handlers' lookups
    of it find it without another query.
    """
    anchor = select(literal(user_id, BigInteger).label("uid"), literal("", String).label("blank")).subquery()
    stmt = (select(User, Setting.key, Setting.value).select_from(anchor)
            .outerjoin(User, User.id == anchor.c.uid)
            .outerjoin(Setting, Setting.key != anchor.c.blank))
    user, pairs = None, []
    for row in db.session.execute(stmt):
        user = row[0] if row[0] is not None else user
        if row[1] is not None:
            pairs.append((row[1], row[2]))
    return pairs, user
