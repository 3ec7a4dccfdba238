"""Audience selection and INSERT ... SELECT population."""
from datetime import timedelta

import pytest
from sqlalchemy import insert, select

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem, User
from app.models.audience import Audience
from app.models.user import CHANNEL_MEMBER, CHANNEL_NOT_MEMBER
from app.repository import broadcast_ledger as ledger
from app.repository import broadcast_population as population
from app.services.broadcast.jobs import control, creation
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users, reload


def seed_audiences():
    """Create 3 members, 4 non-members, 2 unknown and 5 blocked users."""
    create_users(3, start=BASE_ID, status=CHANNEL_MEMBER)
    create_users(4, start=BASE_ID + 100, status=CHANNEL_NOT_MEMBER)
    create_users(2, start=BASE_ID + 200)
    create_users(5, start=BASE_ID + 300, blocked=True, status=CHANNEL_MEMBER)


def test_audience_counts_use_stored_columns_only(app, simulator):
    seed_audiences()
    assert creation.audience_counts() == {"all": 9, "members": 3, "non_members": 6}
    assert simulator.stats()["calls"].get("getChatMember", 0) == 0


@pytest.mark.parametrize("audience,expected", [("all", 9), ("members", 3), ("non_members", 6)])
def test_population_matches_audience(app, audience, expected):
    seed_audiences()
    job = create_text_job(audience)
    assert reload(job.id).total_count == expected
    assert ledger.tallies(job.id) == {"pending": expected}


def test_population_is_safe_to_run_twice(app):
    seed_audiences()
    job = create_text_job("all")
    again = population.populate(job.id, "all")
    db.session.commit()
    assert again == 9
    assert ledger.tallies(job.id) == {"pending": 9}


def test_empty_audience_creates_nothing(app):
    create_users(2, blocked=True)
    with pytest.raises(creation.EmptyAudience):
        create_text_job("all")
    assert control.list_jobs() == []


@pytest.mark.parametrize("content,error", [
    ({"type": "text", "text": "   "}, "empty"),
    ({"type": "text", "text": "x" * 4097}, "4096"),
    ({"type": "copy", "from_chat_id": "a", "message_id": 1}, "integer"),
    ({"type": "video"}, "type"),
])
def test_bad_content_is_refused(app, content, error):
    create_users(1)
    with pytest.raises(ValueError, match=error):
        creation.create_job(audience="all", created_by=1, content=content)


def test_button_needs_text_and_url(app):
    create_users(1)
    with pytest.raises(ValueError, match="button"):
        creation.create_job(audience="all", created_by=1, content={"type": "text", "text": "hi"}, button_text="x")


def seed_languages_and_ages():
    """Users by language (NULL and mixed case included), by last seen and by start date."""
    now = utcnow()
    rows = [  # id, language_code, days since last seen, days since start, blocked
        (BASE_ID + 1, "fa", 1, 100, False), (BASE_ID + 2, "fa-IR", 20, 20, False),
        (BASE_ID + 3, "en", 2, 3, False), (BASE_ID + 4, "EN-us", 40, 40, False),
        (BASE_ID + 5, None, 3, 5, False), (BASE_ID + 6, "de", 50, 200, False),
        (BASE_ID + 7, "en", 1, 1, True),
    ]
    db.session.execute(insert(User), [
        dict(id=i, first_name="u", language_code=code, is_blocked=blocked, last_seen_at=now - timedelta(days=seen),
             started_at=now - timedelta(days=started)) for i, code, seen, started, blocked in rows
    ])
    db.session.commit()


@pytest.mark.parametrize("audience, expected", [
    (Audience(langs=("fa",)), [1, 2]),
    (Audience(langs=("en",)), [3, 4]),
    (Audience(langs=("other",)), [5, 6]),
    (Audience(langs=("en", "other")), [3, 4, 5, 6]),
    (Audience(active_days=7), [1, 3, 5]),
    (Audience(joined_days=30), [2, 3, 5]),
    (Audience(langs=("fa", "en"), active_days=30, joined_days=30), [2, 3]),
], ids=["fa", "en", "other-and-null", "en+other", "active7", "joined30", "combined"])
def test_filters_count_and_populate_the_same_users(app, audience, expected):
    seed_languages_and_ages()
    assert population.count_audience(audience) == len(expected)
    job = create_text_job(audience)
    assert reload(job.id).total_count == len(expected)
    users = db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job.id)).scalars()
    assert sorted(u - BASE_ID for u in users) == expected
    stored = reload(job.id)
    assert {column: getattr(stored, column) for column in audience.columns()} == audience.columns()


@pytest.mark.parametrize("audience, column", [(Audience(active_days=7), "last_seen_at"),
                                              (Audience(joined_days=7), "started_at")], ids=["active", "joined"])
def test_seven_days_takes_a_user_of_six_and_a_half_days_and_leaves_one_of_seven_days_and_a_minute(
        app, audience, column):
    now = utcnow()
    ages = {BASE_ID + 1: timedelta(days=6.5), BASE_ID + 2: timedelta(days=7, minutes=1)}
    db.session.execute(insert(User), [
        {"id": user_id, "first_name": "u", "last_seen_at": now, "started_at": now, column: now - age}
        for user_id, age in ages.items()])
    db.session.commit()
    assert population.count_audience(audience) == 1
    job = create_text_job(audience)
    users = db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job.id)).scalars()
    assert list(users) == [BASE_ID + 1]


def test_filters_that_leave_nobody_create_nothing(app):
    seed_languages_and_ages()
    with pytest.raises(creation.EmptyAudience, match="after its filters"):
        create_text_job(Audience(langs=("fa",), joined_days=7))
    assert control.list_jobs() == []


@pytest.mark.parametrize("kwargs", [{"base": "vip"}, {"langs": ("ru",)}, {"active_days": 0},
                                    {"joined_days": 99_999}, {"active_days": True}])
def test_bad_filters_are_refused(kwargs):
    with pytest.raises(ValueError):
        Audience(**kwargs)
