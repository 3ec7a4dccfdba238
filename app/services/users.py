"""Users as the bot sees them: /start registration, blocking, opting out, channel membership."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from app.clock import utcnow
from app.extensions import db
from app.models.base import fit
from app.models.user import CHANNEL_MEMBER, CHANNEL_NOT_MEMBER, CHANNEL_UNKNOWN, User
from app.repository import users as repo
from app.services import audit
from app.services.audience import tags
from app.telegram.errors import TelegramError

log = logging.getLogger(__name__)
MEMBER_STATUSES = frozenset({"member", "administrator", "creator"})
GONE_STATUSES = frozenset({"left", "kicked"})
# last_seen_at feeds "active within N days": minutes of precision are plenty,
# and skipping the write spares the row most updates.
SEEN_EVERY = timedelta(minutes=5)


@dataclass(frozen=True)
class Profile:
    """The parts of a Telegram User we store."""

    id: int
    first_name: str = ""
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None

    def __post_init__(self) -> None:
        # A last guard: `true` or 1001.0 must never become user 1 or 1001 (users.id is a signed BIGINT).
        if type(self.id) is not int or not 0 < self.id < 2**63:
            raise ValueError("a user id must be a positive integer within BIGINT")

    def columns(self) -> dict:
        """Return column values, cut to the column sizes (Telegram's own limits are lower)."""
        return {
            "first_name": fit(User.first_name, self.first_name or ""),
            "last_name": fit(User.last_name, self.last_name or None),
            "username": fit(User.username, self.username or None),
            "language_code": fit(User.language_code, self.language_code or None),
        }


def register_start(profile: Profile, now=None, source: str | None = None,
                   looked_up: bool = False) -> tuple[str, bool]:
    """Create or refresh the user on /start; return (main_channel_status, created).

    source: the /start payload, already checked; stored only while the user
    has none, so the first one stays (a user who started without one gets
    the first they bring later). Opting out is left as it is. One upsert:
    looked_up tells that this transaction already read the user's row (the
    webhook's one read), so a row not in the session is a new user.
    """
    now = now or utcnow()
    known = repo.loaded(profile.id) if looked_up else db.session.get(User, profile.id)
    status = known.main_channel_status if known is not None else CHANNEL_UNKNOWN
    # Sending /start means the user can receive messages again.
    repo.upsert_start(profile.id, now, source, **profile.columns())
    if known is not None:
        db.session.expire(known)  # the upsert changed the row behind the loaded copy
    return status, known is None


def touch(user_id: int, now=None) -> bool:
    """Record that a known user was seen; written at most once per SEEN_EVERY (True when written)."""
    now = now or utcnow()
    return repo.touch_last_seen(user_id, now, now - SEEN_EVERY) > 0


def touch_loaded(user: User, now=None) -> bool:
    """As touch(), for a row read in this transaction: no statement while its last_seen_at is recent."""
    now = now or utcnow()
    if user.last_seen_at is not None and user.last_seen_at >= now - SEEN_EVERY:
        return False
    return touch(user.id, now)


def _ensure(profile: Profile, now) -> None:
    """Create the user's row if there is none (one statement; none when this transaction read the row)."""
    if repo.loaded(profile.id) is None:
        repo.insert_if_new(profile.id, now, **profile.columns())


def set_blocked(profile: Profile, blocked: bool, now=None) -> None:
    """Record that the user blocked (kicked) or restarted the bot, creating the row if unknown."""
    now = now or utcnow()
    _ensure(profile, now)
    repo.set_blocked(profile.id, blocked, now)


def set_opted_out(profile: Profile, opted_out: bool, now=None) -> bool:
    """Opt the user out of broadcasts (/stop) or back in (/subscribe), creating the row if unknown.

    Only these two change the choice: /start, blocking and unblocking leave
    it as it is. Returns True when the choice changed.
    """
    now = now or utcnow()
    _ensure(profile, now)
    # A row this transaction read that already holds the choice needs no UPDATE (a second press or /stop):
    # one made meanwhile by another request is as if it came after this one.
    loaded = repo.loaded_value(profile.id, "opted_out_at")
    settled = loaded is not repo.NOT_LOADED and (loaded is not None) == opted_out
    changed = not settled and repo.set_opted_out(profile.id, opted_out, now) > 0
    if changed or opted_out:
        tags.mark_opted_out(profile.id, opted_out)
    return changed


def set_opted_out_by_id(user_id: int, opted_out: bool, actor: str) -> bool | None:
    """Opt a known user out of broadcasts or back in on their behalf (audited); None if no such user.

    Returns whether the choice changed; commits. A stranger is refused, not
    created: an operator's typo must not add a user the bot has never seen.
    """
    if db.session.get(User, user_id) is None:
        db.session.rollback()
        return None
    changed = repo.set_opted_out(user_id, opted_out, utcnow()) > 0
    if changed or opted_out:
        tags.mark_opted_out(user_id, opted_out)
    if changed:
        audit.record(actor, audit.OPTED_OUT if opted_out else audit.OPTED_IN, None, f"user {user_id}")
    db.session.commit()
    return changed


def top_sources(limit: int) -> list[str]:
    """Return the first sources with the most users (the pre-send screen offers them as filters)."""
    return repo.top_sources(limit)


def channel_status(member_status: str, is_member: bool | None = None) -> str | None:
    """Map a ChatMember status to our main_channel_status (None when not decisive)."""
    if member_status in MEMBER_STATUSES:
        return CHANNEL_MEMBER
    if member_status in GONE_STATUSES:
        return CHANNEL_NOT_MEMBER
    if member_status == "restricted":
        return CHANNEL_MEMBER if is_member else CHANNEL_NOT_MEMBER
    return None


def record_channel_status(user_id: int, status: str, now=None) -> bool:
    """Store a known user's channel status; strangers stay unknown (True when stored)."""
    return repo.set_channel_status(user_id, status, now or utcnow()) > 0


def needs_membership_check(status: str, channel_id: int | None) -> bool:
    """Tell whether a starting user's membership should be looked up once."""
    return channel_id is not None and status == CHANNEL_UNKNOWN


def check_membership(client, channel_id: int, user_id: int, deadline: float | None = None) -> str | None:
    """Ask Telegram once about one user's membership and store it; failures are logged and ignored.

    Runs after the webhook's transaction committed: the HTTP call holds no
    transaction, and the write is its own short one.
    """
    try:
        member = client.get_chat_member(channel_id, user_id, deadline=deadline)
    except TelegramError as exc:
        log.info("getChatMember for user %s failed: %s", user_id, exc)
        return None
    status = channel_status(member.get("status", ""), member.get("is_member"))
    if status is None:
        return None
    record_channel_status(user_id, status)
    db.session.commit()
    return status
