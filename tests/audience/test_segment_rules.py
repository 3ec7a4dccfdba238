"""Each rule kind's truth table on a crafted population: the count and the population agree with it."""
from __future__ import annotations

import pytest
from sqlalchemy import insert, select, update

from app.extensions import db
from app.models import BroadcastJobItem, User
from app.models.audience import Audience
from app.models.segment_rule import FieldTest, Rule, Target
from app.services.audience import segments
from app.services.broadcast.jobs import creation
from tests.audience.population import JOB, RETRY, seed, uid
from tests.broadcast.helpers import create_text_job

# rule -> the users (offsets in tests/audience/population.py) it must hold; 7 (blocked) and 8 (opted out) never.
CASES = {
    "tags any vip, fa_news": (Rule(tags_any=("vip", "fa_news")), {1, 2, 3}),
    "tags any persian": (Rule(tags_any=("خبر",)), {5}),
    "tags all vip+fa_news": (Rule(tags_all=("vip", "fa_news")), {1}),
    "tags none vip": (Rule(tags_none=("vip",)), {3, 4, 5, 6}),
    "tags upper-case is the same tag": (Rule(tags_any=("VIP",)), {1, 2}),
    "field plan=gold": (Rule(fields=(FieldTest("plan", "=", ("gold",)),)), {1, 3}),
    "field plan!=gold (without the field too)": (Rule(fields=(FieldTest("plan", "!=", ("gold",)),)), {2, 4, 5, 6}),
    "field city in": (Rule(fields=(FieldTest("city", "in", ("تهران", "شیراز")),)), {1, 2, 4}),
    "field value is byte-exact": (Rule(fields=(FieldTest("plan", "=", ("Gold",)),)), set()),
    "received (retry included)": (Rule(received=(JOB,)), {1, 2, 3}),
    "clicked (retry included)": (Rule(clicked=(JOB,)), {1, 3}),
    "not clicked = received, no click": (Rule(not_clicked=(JOB,)), {2}),
    "received and clicked, one broadcast": (Rule(received=(JOB,), clicked=(JOB,)), {1, 3}),
    "received, plan != free": (Rule(received=(JOB,), fields=(FieldTest("plan", "!=", ("free",)),)), {1, 3}),
    "clicked, in Persian, none of vip": (Rule(Audience(langs=("fa",)), tags_none=("vip",), clicked=(JOB,)),
                                        {3}),
    "not clicked, none of fa_news": (Rule(tags_none=("fa_news",), not_clicked=(JOB,)), {2}),
    "and of kinds": (Rule(tags_any=("vip",), fields=(FieldTest("city", "=", ("تهران",)),), received=(JOB,)), {1}),
    "base audience alone": (Rule(Audience("all", langs=("fa",))), {1, 2, 3, 4, 5, 6}),
}


def items_of(job_id: int) -> set[int]:
    """Return the user offsets a job's items hold."""
    ids = set(db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job_id)).scalars())
    db.session.commit()
    return {i - uid(0) for i in ids}


@pytest.mark.parametrize("name", list(CASES))
def test_count_and_population_follow_the_truth_table(app, name):
    seed()
    rule, expected = CASES[name]
    assert segments.count_rule(rule) == len(expected)
    if not expected:
        with pytest.raises(creation.EmptyAudience):
            create_text_job(audience=Target(rule, "s"))
        return
    job = create_text_job(audience=Target(rule, "s"))
    assert items_of(job.id) == expected
    assert job.total_count == len(expected)


def test_a_user_with_two_copies_in_a_retry_family_counts_once(app):
    """Counted from the copies (segment_count.by_recipients), user 2's second delivered copy adds nobody."""
    seed()
    db.session.execute(insert(BroadcastJobItem).values(job_id=RETRY, user_id=uid(2), status="sent"))
    db.session.commit()
    for rule, expected in ((Rule(received=(JOB,)), {1, 2, 3}), (Rule(not_clicked=(JOB,)), {2})):
        assert segments.count_rule(rule) == len(expected)
        assert items_of(create_text_job(audience=Target(rule, "s")).id) == expected


def test_exclusions_leave_out_every_user_of_each_excluded_rule(app):
    seed()
    target = Target(Rule(tags_any=("vip", "fa_news")), "news",
                    (("gold", Rule(fields=(FieldTest("plan", "=", ("gold",)),))),
                     ("clickers", Rule(clicked=(JOB,)))))
    assert segments.count_rule(target) == 1
    assert items_of(create_text_job(audience=target).id) == {2}


def test_an_exclusion_with_a_null_column_does_not_drop_the_user(app):
    """Users without a source (start_source NULL) are not in "source ad1": excluding that keeps them."""
    seed()
    db.session.execute(update(User).where(User.id.in_([uid(3), uid(4), uid(5)])).values(start_source="ad1"))
    db.session.commit()
    target = Target(Rule(tags_none=("vip",)), None, (("ad", Rule(Audience(sources=("ad1",)))),))
    assert segments.count_rule(target) == 1
    assert items_of(create_text_job(audience=target).id) == {6}


def test_the_plain_audience_with_an_exclusion(app):
    seed()
    target = Target(Rule(Audience("all")), None, (("vip", Rule(tags_any=("vip",))),))
    assert items_of(create_text_job(audience=target).id) == {3, 4, 5, 6}


# Each rule kind as an excluded segment: "everyone subscribed less the rule's users" is the truth table's complement.
EVERYONE = {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("name", [n for n in CASES if CASES[n][1] != EVERYONE])
def test_excluding_each_rule_kind_leaves_its_complement(app, name):
    seed()
    rule, expected = CASES[name]
    target = Target(Rule(), None, (("x", rule),))
    assert segments.count_rule(target) == len(EVERYONE - expected)
    assert items_of(create_text_job(audience=target).id) == EVERYONE - expected


def test_an_excluded_rule_with_a_tag_and_a_null_column_does_not_drop_the_user(app):
    """The excluded rule's own filters are read on the user: language_code NULL is not "fa", so 2 stays."""
    seed()
    db.session.execute(update(User).where(User.id == uid(2)).values(language_code=None))
    db.session.commit()
    target = Target(Rule(), None, (("fa vip", Rule(Audience(langs=("fa",)), tags_any=("vip",))),))
    assert segments.count_rule(target) == 5
    assert items_of(create_text_job(audience=target).id) == {2, 3, 4, 5, 6}


def test_an_excluded_rule_with_several_conditions_excludes_only_users_meeting_all(app):
    seed()
    both = Rule(tags_any=("vip", "fa_news"), tags_none=("خبر",), fields=(FieldTest("city", "in", ("تهران",)),
                                                                        FieldTest("plan", "!=", ("free",))),
                received=(JOB,))
    target = Target(Rule(), None, (("x", both),))
    assert segments.count_rule(target) == 5
    assert items_of(create_text_job(audience=target).id) == {2, 3, 4, 5, 6}
