"""last_seen_at moves forward on every kind of update, written at most once per few minutes."""
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import User
from app.services.users import SEEN_EVERY
from app.simulator.updates import callback_update, chat_member_update, message_update, my_chat_member_update
from tests.conftest import MAIN_CHANNEL_ID
from tests.factories import create_user, get_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")
USER = 8101


def seen_ago(delta: timedelta):
    """Set the user's last_seen_at delta in the past; return the stored value."""
    when = (utcnow() - delta).replace(microsecond=0)
    db.session.execute(update(User).where(User.id == USER).values(last_seen_at=when))
    db.session.commit()
    return when


@pytest.mark.parametrize("build", [
    lambda: message_update(USER, "hi"),
    lambda: callback_update(USER, "w.continue:1", USER, 1),
    lambda: my_chat_member_update(USER, "member", "kicked"),
    lambda: chat_member_update(MAIN_CHANNEL_ID, USER, "left", "member"),
], ids=["message", "callback_query", "my_chat_member", "chat_member"])
def test_every_update_kind_marks_the_user_seen(client, simulator, app, build):
    create_user(USER)
    seen_ago(timedelta(days=10))
    before = utcnow() - timedelta(seconds=1)
    assert post_update(client, build(), sim=simulator).status_code == 200
    assert get_user(USER).last_seen_at >= before


def test_a_recent_mark_is_not_rewritten(client, simulator, app):
    create_user(USER)
    recent = seen_ago(SEEN_EVERY - timedelta(minutes=1))
    post_update(client, message_update(USER, "hi"), sim=simulator)
    assert get_user(USER).last_seen_at == recent
    older = seen_ago(SEEN_EVERY + timedelta(minutes=1))
    post_update(client, message_update(USER, "hi again"), sim=simulator)
    assert get_user(USER).last_seen_at > older


def test_strangers_are_not_created_by_the_mark(client, simulator, app):
    post_update(client, message_update(USER, "hi"), sim=simulator)
    assert get_user(USER) is None


def test_a_channel_admins_change_marks_the_member_seen_not_the_admin(client, simulator, app):
    channel_admin = 8102
    create_user(USER)
    create_user(channel_admin)
    db.session.execute(update(User).values(last_seen_at=(utcnow() - timedelta(days=10)).replace(microsecond=0)))
    db.session.commit()
    admin_seen = get_user(channel_admin).last_seen_at
    before = utcnow() - timedelta(seconds=1)
    change = chat_member_update(MAIN_CHANNEL_ID, USER, "left", "member", by=channel_admin)
    assert post_update(client, change, sim=simulator).status_code == 200
    assert get_user(USER).last_seen_at >= before
    assert get_user(channel_admin).last_seen_at == admin_seen
