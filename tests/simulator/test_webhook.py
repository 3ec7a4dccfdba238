"""Webhook delivery: secret header, webhook replies, and what updates imply."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from app.simulator import updates
from app.simulator.webhook import NoWebhook


class Receiver:
    """A tiny webhook endpoint that records requests and answers a canned reply."""

    def __init__(self):
        self.requests: list[tuple[dict, dict]] = []
        self.reply: tuple[int, dict | str] = (200, {"ok": True})
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                receiver.requests.append((dict(self.headers), body))
                status, payload = receiver.reply
                data = payload if isinstance(payload, str) else json.dumps(payload)
                data = data.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/telegram/webhook"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()


@pytest.fixture
def receiver():
    hook = Receiver()
    yield hook
    hook.server.shutdown()
    hook.server.server_close()


def test_post_update_sends_secret_header(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url, secret_token="s3cret")
    update = updates.message_update(5, "/start")
    status, body = sim.post_update(update)
    assert (status, body) == (200, {"ok": True})
    headers, received = receiver.requests[0]
    assert received == update
    assert headers["X-Telegram-Bot-Api-Secret-Token"] == "s3cret"


def test_no_secret_header_without_secret(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    sim.post_update(updates.message_update(5, "hi"))
    assert "X-Telegram-Bot-Api-Secret-Token" not in receiver.requests[0][0]


def test_webhook_reply_method_is_executed(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    receiver.reply = (200, {"method": "sendMessage", "chat_id": 5, "text": "<b>welcome</b>",
                            "parse_mode": "HTML"})
    status, body = sim.post_update(updates.message_update(5, "/start"))
    assert status == 200 and body["method"] == "sendMessage"
    record = sim.deliveries()[0]
    assert record["chat_id"] == 5 and record["text"] == "<b>welcome</b>"


def test_non_200_and_text_bodies_are_returned(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    receiver.reply = (403, "forbidden")
    assert sim.post_update(updates.message_update(5, "x")) == (403, "forbidden")
    assert sim.deliveries() == []


def test_posted_message_can_be_copied(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    update = updates.message_update(1001, "broadcast me")
    sim.post_update(update)
    source = update["message"]["message_id"]
    assert bot.ok("copyMessage", chat_id=7, from_chat_id=1001, message_id=source)
    # Later bot messages in that chat get higher ids than the user's message.
    assert bot.ok("sendMessage", chat_id=1001, text="ok")["message_id"] > source


def test_callback_message_becomes_editable(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    sim.post_update(updates.callback_update(5, "menu", 5, 40))
    assert bot.ok("editMessageText", chat_id=5, message_id=40, text="new")["text"] == "new"


def test_my_chat_member_kicked_blocks_and_member_unblocks(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    sim.post_update(updates.my_chat_member_update(5, "member", "kicked"))
    assert bot.error("sendMessage", chat_id=5, text="x")[0] == 403
    sim.post_update(updates.my_chat_member_update(5, "kicked", "member"))
    assert bot.ok("sendMessage", chat_id=5, text="x")


def test_chat_member_update_sets_membership(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    sim.post_update(updates.chat_member_update(-100300, 5, "left", "member"))
    assert bot.ok("getChatMember", chat_id=-100300, user_id=5)["status"] == "member"


def test_send_update_builds_by_kind(sim, bot, receiver):
    bot.ok("setWebhook", url=receiver.url)
    answer = sim.send_update(kind="message", user_id=8, text="hello")
    assert answer["status"] == 200 and answer["update"]["message"]["message_id"] == 1
    assert receiver.requests[0][1] == answer["update"]


def test_post_update_without_webhook_raises(sim):
    with pytest.raises(NoWebhook):
        sim.post_update(updates.message_update(5, "x"))


def test_unreachable_webhook_raises_connection_error(sim, bot):
    bot.ok("setWebhook", url="http://127.0.0.1:9/hook")
    with pytest.raises(ConnectionError):
        sim.post_update(updates.message_update(5, "x"))
