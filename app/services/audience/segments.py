"""Saved segments: save, list, show, count and delete them, and resolve names or ids into a job's Target."""
from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import Select, func, select

from app.clock import utcnow
from app.extensions import db
from app.models import names
from app.models.audience import Audience
from app.models.segment import Segment
from app.models.segment_rule import Rule, Target
from app.models.user import User
from app.repository import broadcast_population as population
from app.repository import segment_sql
from app.repository import segments as repo
from app.services import audit
from app.services.audience.rules import RuleRefused, check_usable, warnings

SAVED, DELETED = "segment_saved", "segment_deleted"


class SegmentMissing(RuleRefused):
    """No segment has this name (or id): deleted, or mistyped."""


@dataclass(frozen=True)
class Saved:
    """What `save` did: the segment, whether it replaced one, its users now and the warnings to show."""

    segment: Segment
    replaced: bool
    count: int
    warnings: list[str]


def rule_of(segment: Segment) -> Rule:
    """Return a stored segment's rule."""
    return Rule.from_json(json.loads(segment.rule))


def save(name: str, rule: Rule, *, replace: bool = False, actor: str | None = None,
         created_by: int | None = None) -> Saved:
    """Save a rule under name (replace=True overwrites one); refused in one line, nothing changed, when invalid."""
    name = _name(name)
    check_usable(rule)
    stored, now = json.dumps(rule.to_json(), ensure_ascii=False, sort_keys=True), utcnow()
    existing = repo.by_name(name)
    if existing is not None and not replace:
        raise RuleRefused(f"segment {names.quote(name)} exists: add --replace to give it this rule")
    if existing is not None:
        repo.replace_rule(existing, stored, now)
        segment = existing
    else:
        segment = repo.insert(name, stored, created_by, now)
        if segment is None:
            raise RuleRefused(f"segment {names.quote(name)} was saved by someone else just now: add --replace to "
                              "overwrite it")
    audit.record(actor, SAVED, None, f"{name}: {rule}")
    db.session.commit()
    found = count_rule(rule)
    return Saved(segment, existing is not None, found, warnings(rule))


def get(name: str) -> Segment:
    """Return the segment of this name (names.segment_name: VIP is vip), or raise SegmentMissing naming it."""
    segment = repo.by_name(_name(name))
    if segment is None:
        raise SegmentMissing(f"no segment {names.quote(name[:70])} (see `flask --app wsgi segments list`)")
    return segment


def _name(raw: str) -> str:
    """Return raw as a segment name (names.segment_name), or raise RuleRefused saying why."""
    try:
        return names.segment_name(raw)
    except names.BadName as exc:
        raise RuleRefused(str(exc)) from None


def get_by_id(segment_id: int) -> Segment | None:
    """Return the segment with this id, or None when it was deleted."""
    return repo.by_id(segment_id)


def page(limit: int, offset: int = 0) -> tuple[list[Segment], int]:
    """Return one page of segments by name, and how many there are."""
    return repo.all_segments(limit, offset), repo.count_segments()


def all_segments() -> list[Segment]:
    """Return every segment by name."""
    return repo.all_segments()


def delete(name: str, actor: str | None = None) -> None:
    """Delete a segment (jobs made from it keep their own copy of its rule); SegmentMissing if there is none."""
    name = _name(name)
    if not repo.delete_named(name):
        raise SegmentMissing(f"no segment {names.quote(name[:70])} (see `flask --app wsgi segments list`)")
    audit.record(actor, DELETED, None, name)
    db.session.commit()


def count_rule(rule: Rule | Target) -> int:
    """Count the users a rule (or a target, exclusions applied) reaches now: population's own WHERE."""
    target = rule if isinstance(rule, Target) else Target(rule)
    found = population.count_audience(target)
    db.session.commit()
    return found


def target(include: str | None, excludes: tuple[str, ...] = (), audience: Audience | None = None) -> Target:
    """Resolve segment names into the Target a job stores: include's rule (or audience's) less each exclusion."""
    include = _name(include) if include else None
    rule = rule_of(get(include)) if include else Rule(audience or Audience())
    excludes = tuple(dict.fromkeys(_name(name) for name in excludes))  # VIP and vip: one exclusion
    return Target(rule, include, tuple((name, rule_of(get(name))) for name in excludes))


def target_by_ids(include: int | None, excludes: tuple[int, ...], audience: Audience) -> Target:
    """As target(), from the segment ids the wizard's buttons carry; SegmentMissing when one was deleted."""
    def named(segment_id: int) -> str:
        segment = repo.by_id(segment_id)
        if segment is None:
            raise SegmentMissing(f"segment #{segment_id} was deleted")
        return segment.name
    return target(named(include) if include else None, tuple(named(i) for i in excludes), audience)


def of_draft(draft) -> Audience | Target:
    """Return what a wizard or CLI draft sends to: its plain audience, or the Target its segment ids resolve to."""
    if draft.segment_id is None and not draft.exclude_ids:
        return draft.target
    return target_by_ids(draft.segment_id, tuple(draft.exclude_ids or ()), draft.target)


def matching_user_ids(name: str) -> Select:
    """Return SELECT users.id of the segment's users now (the seam for `users tag add/remove --where NAME`)."""
    return select(User.id).where(*segment_sql.target_filter(Target(rule_of(get(name)), name)))


def count_matching(name: str) -> int:
    """Count the users matching_user_ids(name) selects."""
    return db.session.execute(select(func.count()).select_from(matching_user_ids(name).subquery())).scalar_one()
