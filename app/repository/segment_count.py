"""A target's count by inclusion–exclusion over its sets: exact, and read from narrow indexes on MariaDB."""
from __future__ import annotations

from datetime import datetime
from itertools import combinations

from sqlalchemy import distinct, func, literal, select
from sqlalchemy.orm import aliased

from app.extensions import db
from app.models.audience import Audience
from app.models.segment_rule import Target
from app.models.user import User
from app.models.user_data import UserField, UserTag
from app.repository import segment_sql
from app.repository.audience_sql import audience_clause, unsubscribed

# Sets taken away (none-of tags, ≠ values, clickers, excluded rules) counted by inclusion–exclusion: 2^n terms.
MAX_SETS = 3


def count_target(target: Target, now: datetime | None = None) -> int:
    """Count a target's users now, the same users population inserts (tests/audience/test_segment_counts.py).

    The one-query form probes users against each set row by row: on MariaDB
    with a small buffer pool, 1–4 s for a million users. Counted instead:
    "every subscribed user cut by tag and field sets" (exclusions of one such
    set too) from each set's own index range (by_table_sets); a rule with no
    positive condition as its subscribed users (a covering index) less those
    in the sets. Any other target, or more than MAX_SETS sets, by the one query.
    """
    found = segment_sql.table_sets(target)
    if found is not None and countable(*found):
        return by_table_sets(*found)
    base, sets = segment_sql.split(target, now)
    if not sets or len(sets) > MAX_SETS or segment_sql.has_positives(target.include):
        where = segment_sql.target_filter(target, now)
        return db.session.execute(select(func.count()).select_from(User).where(*where)).scalar_one()
    return inclusion_exclusion(base, sets)


def countable(needed: list[tuple], taken: list[tuple]) -> bool:
    """Tell whether by_table_sets counts these sets: 1 to MAX_SETS taken, each a tag or field set.

    A tag's or field's row always has its users row (a foreign key, ON DELETE
    CASCADE), so its distinct user ids are users; a copy's user id has no key.
    """
    sets = [*needed, *taken]
    return bool(sets) and len(taken) <= MAX_SETS and all(model in (UserTag, UserField) for model, _ in sets)


def inclusion_exclusion(base: list, sets: list[list]) -> int:
    """Count users meeting base and none of sets: Σ over subsets T of sets of (−1)^|T| |base ∩ T|, one statement."""
    def term(chosen):
        where = [c for conditions in chosen for c in conditions]
        return select(func.count()).select_from(User).where(*base, *where).scalar_subquery()
    return _alternating(sets, term)


def by_table_sets(needed: list[tuple], taken: list[tuple]) -> int:
    """Count subscribed users in every needed set and no taken one (sets as segment_sql.table_sets returns them).

    Each term, "subscribed users in these sets", reads the first set's index
    range (the others as EXISTS: MariaDB semi-joins them, SQLite probes their
    primary keys instead of listing a large set) and leaves out its rows
    whose user is blocked or opted out, found in a small table of those
    users' ids that MariaDB builds once (DISTINCT keeps it a table: merged
    into the join it would probe the wide users rows one by one). With no
    set at all: the subscribed users.
    """
    unsubscribed_ids = select(User.id).where(unsubscribed()).distinct().subquery("unsubscribed")

    def term(chosen):
        sets = [*needed, *chosen]
        if not sets:
            return select(func.count()).select_from(User).where(*audience_clause(Audience())).scalar_subquery()
        (model, conditions), rest = sets[0], sets[1:]
        first = aliased(model)
        inside = [select(literal(1)).select_from(other).where(other.user_id == first.user_id, *c(other))
                  .correlate(first).exists() for other, c in ((aliased(m), c) for m, c in rest)]
        return (select(func.count(distinct(first.user_id))).select_from(first)
                .outerjoin(unsubscribed_ids, unsubscribed_ids.c.id == first.user_id)
                .where(*conditions(first), *inside, unsubscribed_ids.c.id.is_(None)).scalar_subquery())
    return _alternating(taken, term)


def _alternating(sets: list, term) -> int:
    """Return Σ over subsets T of sets of (−1)^|T| term(T), run as one statement of scalar subqueries."""
    total = None
    for size in range(len(sets) + 1):
        for chosen in combinations(sets, size):
            value = term(list(chosen))
            total = value if total is None else (total - value if size % 2 else total + value)
    return db.session.execute(select(total)).scalar_one()
