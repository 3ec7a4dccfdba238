"""Audience selection and INSERT ... SELECT population."""
import pytest

from app.extensions import db
from app.models.user import CHANNEL_MEMBER, CHANNEL_NOT_MEMBER
from app.repository import broadcast_items as items
from app.services.broadcast import jobs
from tests.broadcast.helpers import BASE_ID, create_text_job, create_users, reload


def seed_audiences():
    """Create 3 members, 4 non-members, 2 unknown and 5 blocked users."""
    create_users(3, start=BASE_ID, status=CHANNEL_MEMBER)
    create_users(4, start=BASE_ID + 100, status=CHANNEL_NOT_MEMBER)
    create_users(2, start=BASE_ID + 200)
    create_users(5, start=BASE_ID + 300, blocked=True, status=CHANNEL_MEMBER)


def test_audience_counts_use_stored_columns_only(app, simulator):
    seed_audiences()
    assert jobs.audience_counts() == {"all": 9, "members": 3, "non_members": 6}
    assert simulator.stats()["calls"].get("getChatMember", 0) == 0


@pytest.mark.parametrize("audience,expected", [("all", 9), ("members", 3), ("non_members", 6)])
def test_population_matches_audience(app, audience, expected):
    seed_audiences()
    job = create_text_job(audience)
    assert reload(job.id).total_count == expected
    assert items.tallies(job.id) == {"pending": expected}


def test_population_is_safe_to_run_twice(app):
    seed_audiences()
    job = create_text_job("all")
    again = items.populate(job.id, "all")
    db.session.commit()
    assert again == 9
    assert items.tallies(job.id) == {"pending": 9}


def test_empty_audience_creates_nothing(app):
    create_users(2, blocked=True)
    with pytest.raises(jobs.EmptyAudience):
        create_text_job("all")
    assert jobs.list_jobs() == []


@pytest.mark.parametrize("content,error", [
    ({"type": "text", "text": "   "}, "empty"),
    ({"type": "text", "text": "x" * 4097}, "4096"),
    ({"type": "copy", "from_chat_id": "a", "message_id": 1}, "integer"),
    ({"type": "video"}, "type"),
])
def test_bad_content_is_refused(app, content, error):
    create_users(1)
    with pytest.raises(ValueError, match=error):
        jobs.create_job(audience="all", created_by=1, content=content)


def test_button_needs_text_and_url(app):
    create_users(1)
    with pytest.raises(ValueError, match="button"):
        jobs.create_job(audience="all", created_by=1, content={"type": "text", "text": "hi"}, button_text="x")
