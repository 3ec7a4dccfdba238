"""Deep-link tags: `t.me/<bot>?start=SOURCE` tags whoever starts with it, new users and returning ones alike."""
from __future__ import annotations

from app.clock import utcnow
from app.extensions import db
from app.models import names
from app.repository import source_tags as repo
from app.services.audience import tags


class BadSource(ValueError):
    """A source Telegram could never send as a /start payload."""


def check_source(source: str) -> str:
    """Return source (names.source) if Telegram could send it as a /start payload, else raise BadSource."""
    try:
        return names.source(source)
    except names.BadName as exc:
        raise BadSource(str(exc)) from None


def set_source_tag(source: str, tag: str) -> str | None:
    """Map a source to a tag (names checked; raises BadSource or names.BadName); commit; return the old tag."""
    source, tag = check_source(source), names.tag(tag)
    old = repo.put(source, tag, utcnow())
    db.session.commit()
    return old


def remove_source_tag(source: str) -> bool:
    """Forget a source's tag; commit; True when there was one. Tags already given stay."""
    removed = repo.remove(check_source(source))
    db.session.commit()
    return removed


def source_tags() -> list[dict]:
    """Return the map, by source."""
    pairs = repo.all_pairs()
    db.session.commit()
    return [{"source": source, "tag": tag} for source, tag in pairs]


def tag_from_start(user_id: int, source: str | None) -> bool:
    """Give a starting user their source's tag, in the /start's own transaction; True when newly tagged."""
    if source is None:
        return False
    tag = repo.tag_for(source)
    return tag is not None and tags.tag_user(user_id, tag, tags.ORIGIN_DEEPLINK)
