"""Ids are parsed strictly: only plain JSON integers in range reach PTB, SQL and the admin check."""
import json

import pytest

from app.bot.update_ids import bad_id
from app.services.users import Profile
from app.simulator.updates import callback_update, chat_member_update, message_update, my_chat_member_update

GOOD = [message_update(7, "/start"), callback_update(7, "w.continue:1", 7, 3),
        my_chat_member_update(7, "member", "kicked"), chat_member_update(-1001234567890, 7, "left", "member"),
        message_update(2**63 - 1, "/start"), {"update_id": 1}, {"update_id": 2, "poll": {"id": "p"}}]


@pytest.mark.parametrize("update", GOOD)
def test_real_updates_pass(update):
    assert bad_id(json.loads(json.dumps(update))) is None


@pytest.mark.parametrize("value", [None, True, False, 1001.0, 1.5, 0, -5, 2**63, 2**70, "1001", [1], {}])
def test_bad_user_ids_are_named(value):
    update = message_update(7, "/start")
    update["message"]["from"]["id"] = value
    assert bad_id(json.loads(json.dumps(update))) == "message.from.id"


@pytest.mark.parametrize("value", [None, True, 7.0, 0, 2**63, -(2**63), "7"])
def test_bad_chat_ids_are_named(value):
    update = message_update(7, "/start")
    update["message"]["chat"]["id"] = value
    assert bad_id(update) == "message.chat.id"


def test_nested_and_listed_users_are_checked():
    update = message_update(7, "hi")
    update["message"]["reply_to_message"] = {"message_id": 1, "date": 0, "chat": {"id": 7, "type": "private"},
                                             "from": {"id": 8.0, "is_bot": False, "first_name": "x"}}
    assert bad_id(update) == "message.reply_to_message.from.id"
    update = message_update(7, "hi")
    update["message"]["new_chat_members"] = [{"id": 9, "is_bot": False, "first_name": "a"}, {"id": True}]
    assert bad_id(update) == "message.new_chat_members[1].id"
    update = json.loads(json.dumps(chat_member_update(-100123, 7, "left", "member")))
    update["chat_member"]["new_chat_member"]["user"]["id"] = 7.0
    assert bad_id(update) == "chat_member.new_chat_member.user.id"


@pytest.mark.parametrize("value", ["x", 5, [], [{"id": 7}], True])
def test_a_user_that_is_not_an_object_is_bad(value):
    update = message_update(7, "/start")
    update["message"]["from"] = value
    assert bad_id(update) == "message.from.id"


def test_deep_nesting_is_walked_without_recursion():
    node: dict = {"id": 1}
    for _ in range(50_000):
        node = {"reply_to_message": node}
    assert bad_id({"update_id": 1, "message": node}) is None


@pytest.mark.parametrize("value", [True, 1001.0, 0, -5, 2**63, None])
def test_profile_refuses_what_is_not_a_user_id(value):
    with pytest.raises(ValueError):
        Profile(id=value)
    assert Profile(id=1001).id == 1001
