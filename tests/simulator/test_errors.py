"""Every error text the simulator promises, in Telegram's exact shape."""

from __future__ import annotations

import pytest
import requests

from app.simulator.errors import NOT_MODIFIED


def test_wrong_token_is_401(sim):
    body = requests.post(f"{sim.base_url}/bot999:wrong/getMe").json()
    assert body == {"ok": False, "error_code": 401, "description": "Unauthorized"}


def test_revoked_token_then_restored(sim, bot):
    sim.revoke_token()
    assert bot.error("sendMessage", chat_id=1, text="x")[:2] == (401, "Unauthorized")
    assert bot.error("getMe")[:2] == (401, "Unauthorized")
    sim.restore_token()
    assert bot.ok("getMe")["id"] == 123456
    assert sim.deliveries() == []


def test_unknown_method_and_path_are_404(sim, bot):
    assert bot.error("sendTelepathy")[:2] == (404, "Not Found")
    body = requests.get(f"{sim.base_url}/nothing/here").json()
    assert body == {"ok": False, "error_code": 404, "description": "Not Found"}


def test_invalid_json_body_is_400(sim):
    response = requests.post(f"{sim.api_url}/sendMessage", data=b"{not json",
                             headers={"Content-Type": "application/json"})
    body = response.json()
    assert response.status_code == 400 and body["description"].startswith("Bad Request: ")


@pytest.mark.parametrize(("action", "code", "description"), [
    ("block", 403, "Forbidden: bot was blocked by the user"),
    ("deactivate", 403, "Forbidden: user is deactivated"),
    ("forget", 400, "Bad Request: chat not found"),
])
def test_recipient_errors(sim, bot, action, code, description):
    getattr(sim, action)(42)
    source = sim.add_message(1001, text="post")
    assert bot.error("sendMessage", chat_id=42, text="hi")[:2] == (code, description)
    assert bot.error("copyMessage", chat_id=42, from_chat_id=1001,
                     message_id=source)[:2] == (code, description)
    assert sim.deliveries() == []
    assert sim.stats()["4xx"] == {description: 2}


def test_unblock_restores_delivery(sim, bot):
    sim.block(43)
    sim.unblock(43)
    assert bot.ok("sendMessage", chat_id=43, text="back")["message_id"] == 1


def test_forgotten_chat_in_get_chat_member(sim, bot):
    sim.forget(-100777)
    assert bot.error("getChatMember", chat_id=-100777, user_id=1)[:2] == (
        400, "Bad Request: chat not found")


@pytest.mark.parametrize(("text", "description"), [
    ("", "Bad Request: message text is empty"),
    ("   \n ", "Bad Request: message text is empty"),
    ("<b> </b>", "Bad Request: message text is empty"),
    ("x" * 4097, "Bad Request: message is too long"),
    ("😀" * 2049, "Bad Request: message is too long"),
])
def test_text_errors(bot, text, description):
    assert bot.error("sendMessage", chat_id=1, text=text, parse_mode="HTML")[1] == description


def test_text_at_limit_counts_tags_out(bot):
    bot.ok("sendMessage", chat_id=1, text="<b>" + "x" * 4096 + "</b>", parse_mode="HTML")


def test_missing_text_parameter(bot):
    assert bot.error("sendMessage", chat_id=1)[1] == "Bad Request: message text is empty"


def test_missing_chat_id(bot):
    assert bot.error("sendMessage", text="x")[1] == "Bad Request: chat_id is empty"


@pytest.mark.parametrize(("text", "description"), [
    ("<foo>x</foo>", 'Unsupported start tag "foo" at byte offset 0'),
    ("<b>bold", 'Can\'t find end tag corresponding to start tag "b"'),
    ("a < b", 'Unsupported start tag "" at byte offset 2'),
    ("Tom & Jerry", 'Character "&" must be escaped as "&amp;" at byte offset 4'),
    ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
])
def test_html_parse_errors(bot, text, description):
    code, got, _ = bot.error("sendMessage", chat_id=1, text=text, parse_mode="HTML")
    assert code == 400 and got == f"Bad Request: can't parse entities: {description}"


def test_unsupported_parse_mode(bot):
    assert bot.error("sendMessage", chat_id=1, text="x",
                     parse_mode="BBCode")[1] == "Bad Request: unsupported parse_mode"


@pytest.mark.parametrize(("button", "description"), [
    ({"text": "x", "url": "ftp://example.com"},
     "Bad Request: inline keyboard button URL 'ftp://example.com' is invalid: "
     "Unsupported URL protocol"),
    ({"text": "x", "url": "javascript:alert(1)"},
     "Bad Request: inline keyboard button URL 'javascript:alert(1)' is invalid: Wrong HTTP URL"),
    ({"text": "x", "url": "https://"},
     "Bad Request: inline keyboard button URL 'https://' is invalid: Wrong HTTP URL"),
    ({"text": "x", "callback_data": "d" * 65}, "Bad Request: BUTTON_DATA_INVALID"),
    ({"text": "x", "callback_data": "ش" * 33}, "Bad Request: BUTTON_DATA_INVALID"),
    ({"text": "x"}, "Bad Request: text buttons are unallowed in the inline keyboard"),
])
def test_inline_keyboard_errors(bot, button, description):
    markup = {"inline_keyboard": [[button]]}
    assert bot.error("sendMessage", chat_id=1, text="x", reply_markup=markup)[1] == description


def test_valid_button_urls(bot):
    markup = {"inline_keyboard": [[{"text": "a", "url": "http://example.com/x?y=1"},
                                   {"text": "b", "url": "tg://resolve?domain=x"},
                                   {"text": "c", "callback_data": "d" * 64}]]}
    bot.ok("sendMessage", chat_id=1, text="x", reply_markup=markup)


def test_unparsable_markup_string(sim):
    body = requests.post(f"{sim.api_url}/sendMessage", data={
        "chat_id": 1, "text": "x", "reply_markup": "{oops"}).json()
    assert body["description"] == "Bad Request: can't parse reply keyboard markup JSON object"


def test_strict_copy_missing_and_deleted_source(sim, bot):
    assert bot.error("copyMessage", chat_id=2, from_chat_id=1001, message_id=5)[1] == (
        "Bad Request: message to copy not found")
    source = sim.add_message(1001, text="post")
    assert sim.delete_message_source(1001, source) is True
    assert bot.error("copyMessage", chat_id=2, from_chat_id=1001, message_id=source)[1] == (
        "Bad Request: message to copy not found")
    sim.configure(strict_copy=False)
    assert bot.ok("copyMessage", chat_id=2, from_chat_id=1001, message_id=5) == {"message_id": 1}


def test_edit_errors(sim, bot):
    sim.configure(per_chat_limits=False)
    sent = bot.ok("sendMessage", chat_id=3, text="<b>same</b>", parse_mode="HTML")
    mid = sent["message_id"]
    assert bot.error("editMessageText", chat_id=3, message_id=mid, text="<b>same</b>",
                     parse_mode="HTML")[1] == NOT_MODIFIED
    assert bot.error("editMessageReplyMarkup", chat_id=3, message_id=mid)[1] == NOT_MODIFIED
    assert bot.error("editMessageText", chat_id=3, message_id=999, text="x")[1] == (
        "Bad Request: message to edit not found")
    assert bot.error("editMessageCaption", chat_id=3, message_id=mid, caption="c")[1] == (
        "Bad Request: there is no caption in the message to edit")
    user_msg = sim.add_message(3, text="from user")
    assert bot.error("editMessageText", chat_id=3, message_id=user_msg, text="x")[1] == (
        "Bad Request: message can't be edited")
    # Same plain text but different formatting is a real change.
    bot.ok("editMessageText", chat_id=3, message_id=mid, text="same")
    assert len(sim.deliveries()) == 2


def test_delete_unknown_message(bot):
    assert bot.error("deleteMessage", chat_id=3, message_id=77)[1] == (
        "Bad Request: message to delete not found")


def test_get_updates_conflicts_with_webhook(bot):
    assert bot.ok("getUpdates") == []
    bot.ok("setWebhook", url="https://x.example/hook")
    assert bot.error("getUpdates")[0] == 409


def test_bad_webhook_secret(bot):
    assert bot.error("setWebhook", url="https://x.example/hook", secret_token="bad token!")[1] == (
        "Bad Request: secret token contains unallowed characters")
