"""Bad input at the webhook: random bodies and headers, and realistic updates with random fields.

Properties: never a 500 (only the documented database 503), never a secret in
the answer or in anything the bot sends, and nothing a non-admin sends ever
creates or changes a job, a setting or an admin's state.
"""
from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.simulator.updates import callback_update, message_update
from tests.conftest import ADMIN_ID, PUMP_TOKEN, WEBHOOK_SECRET
from tests.reliability.fuzzing import (
    assert_replies_clean,
    check_http,
    fuzz,
    post_update,
    post_webhook,
    sender_of,
    snapshot,
    tally,
)
from tests.reliability.strategies import SECRET_HEADER_VALUES, callback_data, realistic_update, webhook_body

CONTENT_TYPES = st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                                 "multipart/form-data; boundary=x", "", "application/json; charset=latin-1"])



@fuzz(150)
@given(body=webhook_body(), secret=SECRET_HEADER_VALUES, content_type=CONTENT_TYPES)
@example(body=b'{"update_id": 1, "message": 5}', secret=WEBHOOK_SECRET, content_type="application/json")
@example(body=b'{"update_id": 2}', secret=PUMP_TOKEN, content_type="application/json")
@example(body=b"\xff" * 10, secret=None, content_type="text/plain")
@example(body=json.dumps(message_update(7, "/broadcast", chat_id=ADMIN_ID)).encode(), secret=WEBHOOK_SECRET,
         content_type="application/json")
def test_random_bodies_and_headers(client, fast_bot, job_ids, figures, body, secret, content_type):
    before, since = snapshot(), len(fast_bot.deliveries())
    response = post_webhook(client, body, secret=secret, content_type=content_type)
    tally(figures, "webhook_random_bodies_and_headers", response)
    check_http(response, "a webhook answer")
    assert_replies_clean(fast_bot, since)
    if secret != WEBHOOK_SECRET:
        assert response.status_code in (401, 403)
    elif sender_of(body) == ADMIN_ID:
        return  # only an update from the admin may change jobs; one that merely names the admin may not
    assert snapshot() == before


@fuzz(150)
@given(data=st.data())
def test_realistic_updates_with_random_fields_from_outsiders(client, fast_bot, job_ids, figures, data):
    update = data.draw(realistic_update(job_ids=tuple(job_ids)))
    check_outsider_update(client, fast_bot, figures, update)


def check_outsider_update(client, fast_bot, figures, update: dict) -> None:
    """Post an update and check the outsiders' property; a field mutated into the admin's own sender id is exempt."""
    before, since = snapshot(), len(fast_bot.deliveries())
    response = post_update(client, fast_bot, update)
    tally(figures, "webhook_realistic_updates_outsiders", response)
    check_http(response, "a webhook answer")
    assert response.status_code in (200, 400)
    assert_replies_clean(fast_bot, since)
    if sender_of(update) != ADMIN_ID:
        assert snapshot() == before


def outsider_naming_the_admin() -> list[tuple[str, dict]]:
    """Updates from an outsider (id 7) that carry the admin's id, or its digits, somewhere else."""
    in_admin_chat = message_update(7, "/broadcast", chat_id=ADMIN_ID)
    reply = message_update(7, "/settings")
    reply["message"]["reply_to_message"] = message_update(ADMIN_ID, "hi")["message"]
    forwarded = message_update(7, "/broadcast")
    forwarded["message"]["forward_origin"] = {"type": "user", "date": 1, "sender_user": {
        "id": ADMIN_ID, "is_bot": False, "first_name": "Admin"}}
    digits = message_update(7, f"/start {ADMIN_ID}", update_id=int(f"{ADMIN_ID}{ADMIN_ID}"))
    button = callback_update(7, "w.confirm", ADMIN_ID, 1)
    return [("in_the_admins_chat", in_admin_chat), ("replying_to_the_admin", reply),
            ("forwarding_the_admin", forwarded), ("with_the_admins_digits", digits),
            ("pressing_a_button_in_the_admins_chat", button)]


@pytest.mark.parametrize("update", [u for _, u in outsider_naming_the_admin()],
                         ids=[name for name, _ in outsider_naming_the_admin()])
def test_outsider_updates_that_name_the_admin_change_nothing(client, fast_bot, job_ids, figures, update):
    assert sender_of(update) == 7
    check_outsider_update(client, fast_bot, figures, update)


# Shapes the property found: PTB parses them with the nested object missing (None).
HOLLOW_UPDATES = [
    {"my_chat_member": {}},
    {"chat_member": {"from": {"id": 7, "is_bot": False, "first_name": "U"}, "date": 1}},
    {"message": {"message_id": 1, "from": {"id": 7, "is_bot": False, "first_name": "U"}, "date": 1, "text": "/start"}},
    {"callback_query": {"id": "1", "chat_instance": "1", "data": "w.confirm"}},
]


@pytest.mark.parametrize("update", HOLLOW_UPDATES, ids=["my_chat_member", "chat_member", "message", "callback_query"])
def test_updates_missing_a_nested_object_are_not_a_500(client, fast_bot, job_ids, update):
    before = snapshot()
    response = post_update(client, fast_bot, {"update_id": 77, **update})
    check_http(response, "a webhook answer")
    assert snapshot() == before


@fuzz(100)
@given(data=st.data(), user_id=st.integers(1, 2**40).filter(lambda i: i != ADMIN_ID))
def test_outsiders_pressing_any_button_change_nothing(client, fast_bot, job_ids, figures, data, user_id):
    press = data.draw(callback_data(job_ids))
    before, since = snapshot(), len(fast_bot.deliveries())
    response = post_update(client, fast_bot, callback_update(user_id, press, user_id, 1))
    tally(figures, "callbacks_outsiders", response)
    assert check_http(response, "a webhook answer") and response.status_code == 200
    assert snapshot() == before
    assert_replies_clean(fast_bot, since)
