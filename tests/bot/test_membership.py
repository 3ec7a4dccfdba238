"""my_chat_member (block / unblock) and chat_member of the main channel."""
import pytest

from app.models.user import CHANNEL_MEMBER, CHANNEL_NOT_MEMBER, CHANNEL_UNKNOWN
from app.simulator.updates import chat_member_update, my_chat_member_update
from tests.conftest import MAIN_CHANNEL_ID
from tests.factories import create_user, get_user, post_update, processed_ids

pytestmark = pytest.mark.usefixtures("fast_telegram")


def outcome(client, update):
    response = post_update(client, update)
    assert response.status_code == 200
    return response.get_json()["outcome"]


def test_block_then_unblock(client):
    create_user(3001)
    assert outcome(client, my_chat_member_update(3001, "member", "kicked")) == "handled"
    user = get_user(3001)
    assert user.is_blocked and user.blocked_at is not None
    outcome(client, my_chat_member_update(3001, "kicked", "member"))
    user = get_user(3001)
    assert not user.is_blocked and user.blocked_at is None


def test_unknown_user_gets_a_row(client):
    outcome(client, my_chat_member_update(3002, "kicked", "member", first_name="نازنین ✨"))
    user = get_user(3002)
    assert (user.first_name, user.is_blocked, user.main_channel_status) == ("نازنین ✨", False, CHANNEL_UNKNOWN)
    outcome(client, my_chat_member_update(3003, "member", "kicked"))
    assert get_user(3003).is_blocked


def test_block_beyond_32_bits(client):
    big = 7_000_000_000
    outcome(client, my_chat_member_update(big, "member", "kicked"))
    assert get_user(big).is_blocked


def test_my_chat_member_in_a_group_is_ignored(client):
    update = my_chat_member_update(3004, "left", "member")
    update["my_chat_member"]["chat"] = {"id": -100555, "type": "supergroup", "title": "g"}
    assert outcome(client, update) == "ignored"
    assert get_user(3004) is None
    assert processed_ids() == set()


@pytest.mark.parametrize("status, expected", [
    ("member", CHANNEL_MEMBER), ("administrator", CHANNEL_MEMBER), ("creator", CHANNEL_MEMBER),
    ("restricted", CHANNEL_MEMBER), ("left", CHANNEL_NOT_MEMBER), ("kicked", CHANNEL_NOT_MEMBER),
])
def test_channel_statuses(client, status, expected):
    create_user(3010)
    old = "left" if expected == CHANNEL_MEMBER else "member"
    assert outcome(client, chat_member_update(MAIN_CHANNEL_ID, 3010, old, status)) == "handled"
    user = get_user(3010)
    assert user.main_channel_status == expected
    assert user.main_channel_checked_at is not None


def test_restricted_but_not_member_is_not_member(client):
    create_user(3011, main_channel_status=CHANNEL_MEMBER)
    update = chat_member_update(MAIN_CHANNEL_ID, 3011, "member", "restricted")
    update["chat_member"]["new_chat_member"]["is_member"] = False
    outcome(client, update)
    assert get_user(3011).main_channel_status == CHANNEL_NOT_MEMBER


def test_join_and_leave_beyond_32_bits(client):
    big = 2**40 + 7
    create_user(big)
    outcome(client, chat_member_update(MAIN_CHANNEL_ID, big, "left", "member"))
    assert get_user(big).main_channel_status == CHANNEL_MEMBER
    outcome(client, chat_member_update(MAIN_CHANNEL_ID, big, "member", "left"))
    assert get_user(big).main_channel_status == CHANNEL_NOT_MEMBER


def test_stranger_joining_the_channel_is_not_added_to_users(client):
    assert outcome(client, chat_member_update(MAIN_CHANNEL_ID, 3012, "left", "member")) == "handled"
    assert get_user(3012) is None


def test_other_channels_are_ignored(client):
    create_user(3013)
    assert outcome(client, chat_member_update(-1009999999999, 3013, "left", "member")) == "ignored"
    assert get_user(3013).main_channel_status == CHANNEL_UNKNOWN
