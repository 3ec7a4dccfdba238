"""A target's count as its base less what it takes away, by inclusion–exclusion: exact, and index-driven on MariaDB."""
from __future__ import annotations

from datetime import datetime
from itertools import combinations

from sqlalchemy import func, select

from app.extensions import db
from app.models.segment_rule import Target
from app.models.user import User
from app.repository import segment_sql

# Sets taken away (none-of tags, ≠ values, clickers, excluded rules) counted by inclusion–exclusion: 2^n terms.
MAX_SETS = 3


def count_target(target: Target, now: datetime | None = None) -> int:
    """Count a target's users now: |base| − |base ∩ (S1 ∪ … ∪ Sn)|, one statement of 2^n index-driven counts.

    The one-query form (NOT EXISTS per set) probes every base user once per
    set; a million users with two exclusions took 2–4 s on MariaDB. Each term
    here is a plain count of base users in a few sets, which MariaDB drives
    from the set's index range; the base alone reads a covering index of
    users. With a positive condition (a tag, a value, a delivery: the base is
    itself a join) or past MAX_SETS sets, the one-query form is as fast or
    faster (measured in bench.segments), and counts.
    """
    base, sets = segment_sql.split(target, now)
    if not sets or len(sets) > MAX_SETS or segment_sql.has_positives(target.include):
        where = segment_sql.target_filter(target, now)
        return db.session.execute(select(func.count()).select_from(User).where(*where)).scalar_one()
    total = None
    for size in range(len(sets) + 1):
        for chosen in combinations(sets, size):
            term = select(func.count()).select_from(User).where(*base, *(c for s in chosen for c in s))
            term = term.scalar_subquery()
            total = term if total is None else (total - term if size % 2 else total + term)
    return db.session.execute(select(total)).scalar_one()
