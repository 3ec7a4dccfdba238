"""Response shapes of each Bot API method and the ways parameters may arrive."""

from __future__ import annotations

import json

import requests
import telegram

from app.simulator import SimulatorServer

KEYBOARD = {"inline_keyboard": [[{"text": "Open", "url": "https://example.com"},
                                 {"text": "Tap", "callback_data": "tap:1"}]]}


def test_get_me_returns_bot_user_from_token(bot):
    me = bot.ok("getMe")
    assert me["id"] == 123456 and me["is_bot"] is True
    assert me["username"] == "update_pack_sim_bot" and me["first_name"] == "UpdatePack Sim"
    assert telegram.User.de_json(me, None).id == 123456


def test_send_message_returns_message_with_markup(bot):
    msg = bot.ok("sendMessage", chat_id=77, text="<b>Hi</b> there", parse_mode="HTML",
                 reply_markup=KEYBOARD, link_preview_options={"is_disabled": True})
    assert msg["message_id"] == 1 and msg["chat"] == {"id": 77, "type": "private",
                                                      "first_name": "User"}
    assert msg["text"] == "Hi there"
    assert msg["entities"] == [{"type": "bold", "offset": 0, "length": 2}]
    assert msg["reply_markup"] == KEYBOARD and isinstance(msg["date"], int)
    parsed = telegram.Message.de_json(msg, None)
    assert parsed.text == "Hi there" and parsed.reply_markup.inline_keyboard[0][1].callback_data == "tap:1"


def test_message_ids_increase_per_chat_and_chat_type_follows_sign(sim, bot):
    sim.configure(per_chat_limits=False)
    ids = [bot.ok("sendMessage", chat_id=5, text=f"m{i}")["message_id"] for i in range(3)]
    assert ids == [1, 2, 3]
    assert bot.ok("sendMessage", chat_id=6, text="x")["message_id"] == 1
    group = bot.ok("sendMessage", chat_id=-100123, text="x")
    assert group["chat"]["type"] == "supergroup"
    sim.set_member(-100999, 1, "member")
    assert bot.ok("sendMessage", chat_id=-100999, text="x")["chat"]["type"] == "channel"


def test_reply_keyboard_is_accepted_but_not_echoed(bot):
    markup = {"keyboard": [[{"text": "Menu"}]], "resize_keyboard": True}
    msg = bot.ok("sendMessage", chat_id=8, text="x", reply_markup=markup)
    assert "reply_markup" not in msg


def test_form_query_and_json_string_parameters(sim, bot):
    url = sim.api_url
    form = requests.post(f"{url}/sendMessage", data={
        "chat_id": "11", "text": "form", "reply_markup": json.dumps(KEYBOARD),
        "allow_paid_broadcast": "true"}).json()
    assert form["ok"] and form["result"]["reply_markup"] == KEYBOARD
    query = requests.get(f"{url}/sendMessage", params={"chat_id": 12, "text": "query"}).json()
    assert query["ok"] and query["result"]["text"] == "query"
    assert [d["paid"] for d in sim.deliveries()] == [True, False]


def test_multipart_send_photo_is_accepted(sim):
    response = requests.post(f"{sim.api_url}/sendPhoto", data={"chat_id": "13", "caption": "c"},
                             files={"photo": ("p.jpg", b"\xff\xd8fake", "image/jpeg")})
    body = response.json()
    assert body["ok"] and body["result"]["caption"] == "c"
    assert body["result"]["photo"][0]["file_id"].startswith("sim-upload-")


def test_method_names_are_case_insensitive(sim):
    body = requests.post(f"{sim.api_url}/SENDMESSAGE", json={"chat_id": 1, "text": "x"}).json()
    assert body["ok"] is True
    assert sim.deliveries()[0]["method"] == "sendMessage"


def test_null_parameters_mean_absent(bot):
    msg = bot.ok("sendMessage", chat_id=14, text="<b>", parse_mode=None, reply_markup=None)
    assert msg["text"] == "<b>" and "entities" not in msg


def test_copy_message_returns_message_id_only(sim, bot):
    source = sim.add_message(1001, text="admin post")
    result = bot.ok("copyMessage", chat_id=20, from_chat_id=1001, message_id=source,
                    reply_markup=KEYBOARD)
    assert result == {"message_id": 1}
    record = sim.deliveries("copyMessage")[0]
    assert record["from_chat_id"] == 1001 and record["source_message_id"] == source
    assert record["text"] == "admin post" and record["reply_markup"] == KEYBOARD


def test_copy_of_photo_keeps_caption_and_can_override_it(sim, bot):
    source = sim.add_message(1001, caption="orig", photo=True)
    bot.ok("copyMessage", chat_id=21, from_chat_id=1001, message_id=source)
    bot.ok("copyMessage", chat_id=22, from_chat_id=1001, message_id=source,
           caption="<i>new</i>", parse_mode="HTML")
    first, second = sim.deliveries()
    assert first["caption"] == "orig" and first["photo"]
    assert second["caption"] == "new" and second["parse_mode"] == "HTML"


def test_send_photo_by_file_id(bot):
    msg = bot.ok("sendPhoto", chat_id=23, photo="AgAC-file", caption="<b>c</b>", parse_mode="HTML")
    assert msg["photo"][0]["file_id"] == "AgAC-file" and msg["caption"] == "c"
    assert msg["caption_entities"][0]["type"] == "bold"
    assert telegram.Message.de_json(msg, None).photo[0].file_id == "AgAC-file"


def test_edit_message_text_and_reply_markup(sim, bot):
    sim.configure(per_chat_limits=False)
    sent = bot.ok("sendMessage", chat_id=30, text="v1", reply_markup=KEYBOARD)
    edited = bot.ok("editMessageText", chat_id=30, message_id=sent["message_id"], text="v2",
                    reply_markup=KEYBOARD)
    assert edited["text"] == "v2" and edited["reply_markup"] == KEYBOARD and "edit_date" in edited
    other = {"inline_keyboard": [[{"text": "B", "callback_data": "b"}]]}
    edited = bot.ok("editMessageReplyMarkup", chat_id=30, message_id=sent["message_id"],
                    reply_markup=other)
    assert edited["reply_markup"] == other
    removed = bot.ok("editMessageText", chat_id=30, message_id=sent["message_id"], text="v3")
    assert "reply_markup" not in removed
    assert [d["method"] for d in sim.deliveries()] == [
        "sendMessage", "editMessageText", "editMessageReplyMarkup", "editMessageText"]


def test_edit_message_caption(sim, bot):
    sent = bot.ok("sendPhoto", chat_id=31, photo="file", caption="a")
    edited = bot.ok("editMessageCaption", chat_id=31, message_id=sent["message_id"], caption="b")
    assert edited["caption"] == "b"


def test_delete_message(bot):
    sent = bot.ok("sendMessage", chat_id=32, text="bye")
    assert bot.ok("deleteMessage", chat_id=32, message_id=sent["message_id"]) is True


def test_answer_callback_query_is_recorded(sim, bot):
    assert bot.ok("answerCallbackQuery", callback_query_id="q1", text="Done", show_alert=True)
    answer = sim.callback_answers()[0]
    assert answer["callback_query_id"] == "q1" and answer["text"] == "Done"
    assert answer["show_alert"] is True


def test_get_chat_member_statuses_parse_with_ptb(sim, bot):
    assert bot.ok("getChatMember", chat_id=-100500, user_id=9)["status"] == "left"
    for status in ("creator", "administrator", "member", "restricted", "left", "kicked"):
        sim.set_member(-100500, 9, status)
        member = bot.ok("getChatMember", chat_id=-100500, user_id=9)
        assert member["status"] == status and member["user"]["id"] == 9
        assert telegram.ChatMember.de_json(member, None).status == status
    assert bot.ok("getChatMember", chat_id=-100500, user_id=9)["until_date"] == 0


def test_get_chat_member_by_channel_username(sim, bot):
    sim.set_member("@UpdatePack", 5, "member")
    assert bot.ok("getChatMember", chat_id="@updatepack", user_id=5)["status"] == "member"


def test_webhook_methods(sim):
    url = sim.api_url
    assert requests.get(f"{url}/getWebhookInfo").json()["result"] == {
        "url": "", "has_custom_certificate": False, "pending_update_count": 0}
    body = requests.post(f"{url}/setWebhook", json={
        "url": "https://bot.example/telegram/webhook", "secret_token": "s3cr-et_",
        "allowed_updates": ["message", "callback_query"], "drop_pending_updates": True}).json()
    assert body == {"ok": True, "result": True, "description": "Webhook was set"}
    info = requests.get(f"{url}/getWebhookInfo").json()["result"]
    assert info["url"] == "https://bot.example/telegram/webhook" and info["max_connections"] == 40
    assert info["allowed_updates"] == ["message", "callback_query"]
    assert telegram.WebhookInfo.de_json(info, None).url == info["url"]
    assert requests.post(f"{url}/deleteWebhook").json()["result"] is True
    assert requests.get(f"{url}/getWebhookInfo").json()["result"]["url"] == ""


def test_keep_alive_reuses_one_connection(sim, bot):
    sim.configure(per_chat_limits=False)
    for _ in range(5):
        response = bot("getMe")
        assert response.headers["Content-Length"] == str(len(response.content))
    assert len(sim._httpd._conns) == 1


def test_stop_then_start_new_server_on_free_port():
    first = SimulatorServer().start()
    second = SimulatorServer().start()
    assert first.port != second.port
    first.stop()
    second.stop()
