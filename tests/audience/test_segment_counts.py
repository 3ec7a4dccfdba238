"""A target's count (inclusion–exclusion or one query) and its population agree with a Python truth, set by set."""
from __future__ import annotations

import pytest
from sqlalchemy import insert, select

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, User
from app.models.audience import Audience
from app.models.segment_rule import FieldTest, Rule, Target
from app.models.user_data import UserField, UserTag
from app.repository import segment_count, segment_sql
from app.services.audience import segments
from tests.broadcast.helpers import create_text_job

U, N, JOB = 7_000_000_000, 90, 950


def person(i: int) -> dict:
    """Return user i's columns and data: tags, plan, language, state and history overlap on purpose."""
    return {
        "tags": {t for t, every in (("vip", 3), ("news", 4), ("churn", 5)) if i % every == 0},
        "plan": "gold" if i % 7 == 0 else "free" if i % 2 == 0 else None,
        "lang": None if i % 5 == 1 else "en" if i % 5 == 2 else "fa",
        "blocked": i % 11 == 0, "opted_out": i % 13 == 0,
        "received": i % 2 == 0, "clicked": i % 8 == 0,
    }


PEOPLE = {U + i: person(i) for i in range(1, N + 1)}


def seed() -> None:
    """Insert PEOPLE with their tags, plans and one delivered broadcast JOB (and a copy to a user not in users)."""
    now = utcnow()
    db.session.execute(insert(User), [
        dict(id=uid, first_name="u", language_code=p["lang"], started_at=now, last_seen_at=now,
             is_blocked=p["blocked"], opted_out_at=now if p["opted_out"] else None) for uid, p in PEOPLE.items()])
    db.session.execute(insert(UserTag), [dict(user_id=uid, tag=t, origin="cli", created_at=now)
                                         for uid, p in PEOPLE.items() for t in sorted(p["tags"])])
    db.session.execute(insert(UserField), [dict(user_id=uid, name="plan", value=p["plan"], updated_at=now)
                                           for uid, p in PEOPLE.items() if p["plan"]])
    db.session.add(BroadcastJob(id=JOB, status="completed", audience="all", content_type="text", text="x",
                                created_at=now))
    db.session.flush()
    db.session.execute(insert(BroadcastJobItem), [
        dict(job_id=JOB, user_id=uid, status="sent", clicked_at=now if p["clicked"] else None)
        for uid, p in PEOPLE.items() if p["received"]] + [
        # A copy whose user has no users row (items have no foreign key): nobody, in any count.
        dict(job_id=JOB, user_id=U + 10 * N, status="sent", clicked_at=None)])
    db.session.commit()


def holds(rule: Rule, p: dict) -> bool:
    """Tell in Python whether a subscribed user's data meets rule (only the conditions these tests use)."""
    lang_ok = not rule.audience.langs or any((p["lang"] or "").startswith(x) for x in rule.audience.langs)
    fields_ok = all((p["plan"] in f.values) == (f.op != "!=") for f in rule.fields)
    history_ok = all(p["received"] and not p["clicked"] for _ in rule.not_clicked)
    return (lang_ok and fields_ok and history_ok and (not rule.tags_any or bool(p["tags"] & set(rule.tags_any)))
            and not p["tags"] & set(rule.tags_none))


def truth(target: Target) -> set[int]:
    """Return the users target reaches, computed in Python from PEOPLE."""
    return {uid for uid, p in PEOPLE.items() if not p["blocked"] and not p["opted_out"]
            and holds(target.include, p) and not any(holds(rule, p) for _n, rule in target.excludes)}


VIP, CHURN = Rule(tags_any=("vip",)), Rule(tags_any=("churn",))
FA_VIP, GOLD = Rule(Audience(langs=("fa",)), tags_any=("vip",)), Rule(fields=(FieldTest("plan", "=", ("gold",)),))
NOT_FREE = FieldTest("plan", "!=", ("free",))
# name -> (target, the sets it takes away: 1 to 3 are counted by inclusion–exclusion)
CASES = {
    "all less vip": (Target(Rule(), None, (("vip", VIP),)), 1),
    "all less vip, churn (overlapping)": (Target(Rule(), None, (("vip", VIP), ("churn", CHURN))), 2),
    "none of news, less vip, churn": (Target(Rule(tags_none=("news",)), None, (("v", VIP), ("c", CHURN))), 3),
    "fa, none of news, plan != free, less vip, churn": (
        Target(Rule(Audience(langs=("fa",)), tags_none=("news",), fields=(NOT_FREE,)), None,
               (("v", VIP), ("c", CHURN))), 4),
    "all less fa vip (a NULL language stays), less gold": (Target(Rule(), None, (("f", FA_VIP), ("g", GOLD))), 2),
    "plan != free alone": (Target(Rule(fields=(NOT_FREE,)), "nf"), 1),
    "news, none of churn, less vip": (
        Target(Rule(tags_any=("news",), tags_none=("churn",)), "n", (("v", VIP),)), 2),
    "not clicked, less churn, vip and gold": (
        Target(Rule(not_clicked=(JOB,)), "nc", (("c", CHURN), ("v", VIP), ("g", GOLD))), 4),
    "en, less vip and churn and gold": (
        Target(Rule(Audience(langs=("en",))), None, (("c", CHURN), ("v", VIP), ("g", GOLD))), 3),
}


def items_of(job_id: int) -> set[int]:
    """Return the users a job's items hold."""
    found = set(db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job_id))
                .scalars())
    db.session.commit()
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_count_and_population_equal_the_python_truth(app, name):
    seed()
    target, _sets = CASES[name]
    expected = truth(target)
    assert 0 < len(expected) < len([p for p in PEOPLE.values() if not p["blocked"] and not p["opted_out"]])
    assert segments.count_rule(target) == len(expected)
    job = create_text_job(audience=target)
    assert items_of(job.id) == expected
    assert job.total_count == len(expected)


@pytest.mark.parametrize("name", list(CASES))
def test_the_base_less_the_sets_is_the_target_whichever_count_runs(app, name):
    """split() describes every target (positive conditions, four sets), whether or not count_target uses it."""
    seed()
    target, sets = CASES[name]
    base, taken = segment_sql.split(target)
    assert len(taken) == sets
    assert segment_count.inclusion_exclusion(base, taken) == len(truth(target))
    db.session.commit()


# The cases by_table_sets counts (the plain audience cut by tag and field sets); the others take the paths above.
TABLE_SET_CASES = {"all less vip", "all less vip, churn (overlapping)", "none of news, less vip, churn",
                   "plan != free alone", "news, none of churn, less vip"}


@pytest.mark.parametrize("name", sorted(TABLE_SET_CASES))
def test_counting_from_the_sets_own_rows_equals_the_truth(app, name):
    seed()
    target, _sets = CASES[name]
    assert segment_count.by_table_sets(*segment_sql.table_sets(target)) == len(truth(target))
    db.session.commit()


def test_which_cases_count_from_the_sets_own_rows(app):
    found = {name for name, (target, _) in CASES.items()
             if (sets := segment_sql.table_sets(target)) is not None and segment_count.countable(*sets)}
    db.session.commit()
    assert found == TABLE_SET_CASES


def test_the_cases_cover_one_to_more_than_max_sets():
    assert set(range(1, segment_count.MAX_SETS + 2)) <= {sets for _target, sets in CASES.values()}


@pytest.mark.parametrize("name", ["all less vip, churn (overlapping)", "news, none of churn, less vip"])
def test_a_population_in_small_chunks_leaves_out_the_excluded_tags_at_every_chunk_edge(app, monkeypatch, name):
    """Tag-only exclusions are read within each chunk's id range: users on a chunk's edge (7, 14, 21, …) too."""
    from app.services.broadcast.jobs import population

    monkeypatch.setattr(population, "POPULATE_CHUNK", 7)
    monkeypatch.setattr(population, "POPULATE_CHUNK_MYSQL", 7)
    seed()
    target, _sets = CASES[name]
    job = create_text_job(audience=target)
    assert items_of(job.id) == truth(target)
    assert job.total_count == len(truth(target))
