"""A segment's rule as SQL over users: the one compiler population, counts and the tag commands share."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, case, literal, select

from app.extensions import db
from app.models.broadcast import SENT, BroadcastJob, BroadcastJobItem
from app.models.segment_rule import FieldTest, Rule, Target
from app.models.user import User
from app.models.user_data import UserField, UserTag
from app.repository.audience_sql import audience_clause

I = BroadcastJobItem  # noqa: E741  (short alias keeps the SQL readable)


def target_filter(target: Target, now: datetime | None = None) -> list:
    """Return the WHERE of a target: its rule, and for each excluded rule "not one of its users"."""
    where = rule_filter(target.include, now)
    for _name, rule in target.excludes:
        # CASE, not NOT(...): a NULL in the excluded rule (last_seen_at never set) must not drop the row.
        where.append(case((and_(*rule_filter(rule, now)), 1), else_=0) == 0)
    return where


def rule_filter(rule: Rule, now: datetime | None = None) -> list:
    """Return the WHERE of one rule: the audience's own clause, then one subquery per condition.

    Positive conditions are `users.id IN (SELECT user_id ...)`: MariaDB and
    SQLite can drive them from the (tag, user_id) / (name, value, user_id)
    index; negative ones are NOT EXISTS, one primary-key probe per user.
    """
    where = audience_clause(rule.audience, now)
    if rule.tags_any:
        where.append(User.id.in_(select(UserTag.user_id).where(UserTag.tag.in_(rule.tags_any))))
    for tag in rule.tags_all:
        where.append(User.id.in_(select(UserTag.user_id).where(UserTag.tag == tag)))
    if rule.tags_none:
        where.append(~select(literal(1)).where(UserTag.user_id == User.id, UserTag.tag.in_(rule.tags_none)).exists())
    where += [_field(test) for test in rule.fields]
    for job_id in rule.received:
        where.append(User.id.in_(_items(job_id)))
    for job_id in rule.clicked:
        where.append(User.id.in_(_items(job_id).where(I.clicked_at.is_not(None))))
    for job_id in rule.not_clicked:
        where.append(User.id.in_(_items(job_id)))
        clicked = _items(job_id).where(I.clicked_at.is_not(None), I.user_id == User.id)
        where.append(~clicked.exists())
    return where


def _field(test: FieldTest):
    """Return one field condition; != passes users without the field (they do not have that value)."""
    if test.op == "!=":
        return ~select(literal(1)).where(UserField.user_id == User.id, UserField.name == test.name,
                                         UserField.value == test.values[0]).exists()
    return User.id.in_(select(UserField.user_id).where(UserField.name == test.name,
                                                         UserField.value.in_(test.values)))


def _items(job_id: int):
    """Return SELECT user_id of the copies broadcast job_id (with its retries) delivered."""
    return select(I.user_id).where(I.job_id.in_(job_family(job_id)), I.status == SENT)


def job_family(job_id: int) -> list[int]:
    """Return job_id and every retry of it (retries of retries too): who got "broadcast N" got one of these."""
    family, frontier = [job_id], [job_id]
    while frontier:
        frontier = list(db.session.execute(select(BroadcastJob.id).where(BroadcastJob.retry_of.in_(frontier)))
                        .scalars())
        family += frontier
    return family
