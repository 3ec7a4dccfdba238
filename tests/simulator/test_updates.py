"""Update builders produce objects python-telegram-bot 22 parses."""

from __future__ import annotations

import pytest
import telegram

from app.simulator import updates


def test_message_update_with_command_entity():
    data = updates.message_update(5, "/start ref_42", first_name="علی", username="ali")
    update = telegram.Update.de_json(data, None)
    assert update.message.text == "/start ref_42" and update.effective_user.id == 5
    assert update.message.entities[0].type == "bot_command"
    assert update.message.entities[0].length == len("/start")
    assert update.effective_user.language_code == "fa"
    assert update.effective_chat.type == "private"


def test_message_update_photo_and_explicit_ids():
    data = updates.message_update(5, photo="AgAC", caption="cap", message_id=9, update_id=77)
    update = telegram.Update.de_json(data, None)
    assert update.update_id == 77 and update.message.message_id == 9
    assert update.message.photo[0].file_id == "AgAC" and update.message.caption == "cap"


def test_update_ids_increase():
    first = updates.message_update(1, "a")["update_id"]
    second = updates.callback_update(1, "x", 1, 1)["update_id"]
    assert second > first


def test_callback_update():
    data = updates.callback_update(5, "menu:1", 5, 3, message_text="Menu")
    update = telegram.Update.de_json(data, None)
    query = update.callback_query
    assert query.data == "menu:1" and query.from_user.id == 5 and query.chat_instance
    assert query.message.message_id == 3 and query.message.chat.id == 5
    assert query.message.text == "Menu"


@pytest.mark.parametrize(("old", "new"), [("member", "kicked"), ("kicked", "member")])
def test_my_chat_member_update(old, new):
    update = telegram.Update.de_json(updates.my_chat_member_update(5, old, new), None)
    change = update.my_chat_member
    assert change.old_chat_member.status == old and change.new_chat_member.status == new
    assert change.new_chat_member.user.is_bot and change.chat.type == "private"


@pytest.mark.parametrize("status", ["member", "left", "kicked", "administrator",
                                    "restricted", "creator"])
def test_chat_member_update(status):
    data = updates.chat_member_update(-1001234567890, 5, "left", status)
    update = telegram.Update.de_json(data, None)
    change = update.chat_member
    assert change.chat.type == "channel" and change.new_chat_member.status == status
    assert change.new_chat_member.user.id == 5


def test_builders_registry_covers_every_kind():
    assert set(updates.BUILDERS) == {"message", "callback_query", "my_chat_member",
                                     "chat_member"}
