"""Client over real HTTP against a scripted stub: malformed answers, drops, refusals, payloads."""

import json

import pytest

from app.telegram.client import TelegramClient
from app.telegram.errors import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    Unauthorized,
    UnknownOutcome,
)
from tests.ports import free_port
from tests.telegram.stub_server import DROP, StubServer

TOKEN = "654321:STUB-token-zyxwvutsrqponm"


@pytest.fixture
def stub():
    server = StubServer().start()
    yield server
    server.stop()


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def client(stub, sleeps):
    with TelegramClient(TOKEN, stub.base_url, read_timeout=2.0, sleep=sleeps.append) as client:
        yield client


def error(code, description, **parameters):
    body = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return code, json.dumps(body).encode()


@pytest.mark.parametrize("answer, cls", [
    (error(429, "Too Many Requests: retry after 2", retry_after=2), RetryAfter),
    (error(403, "Forbidden: bot was blocked by the user"), Forbidden),
    (error(400, "Bad Request: chat not found"), BadRequest),
    (error(400, "Bad Request: group chat was upgraded", migrate_to_chat_id=-100777), ChatMigrated),
    (error(401, "Unauthorized"), Unauthorized),
    (error(404, "Not Found"), Unauthorized),
    (error(500, "Internal Server Error"), UnknownOutcome),
    ((502, b"<html>502 Bad Gateway</html>"), UnknownOutcome),
    ((200, b"<html>captive portal</html>"), UnknownOutcome),
    ((200, b'{"result": 1}'), UnknownOutcome),
    (error(409, "Conflict: terminated by other getUpdates request"), TelegramError),
    (DROP, UnknownOutcome),
])
def test_each_answer_maps_to_its_exception(stub, client, answer, cls):
    stub.answers = [answer] * 3
    with pytest.raises(TelegramError) as caught:
        # A deadline shorter than retry_after: the 429 is raised, not waited out.
        client.send_message(1, "hi", deadline=client.clock() + 1)
    assert type(caught.value) is cls
    assert str(caught.value).startswith("sendMessage: ")


def test_migration_carries_the_new_chat_id(stub, client):
    stub.answers = [error(400, "Bad Request: upgraded", migrate_to_chat_id=-100777)]
    with pytest.raises(ChatMigrated) as caught:
        client.send_message(-5, "hi")
    assert caught.value.new_chat_id == -100777


def test_broken_response_to_a_send_is_not_retried(stub, client):
    stub.answers = [DROP, DROP, DROP]
    with pytest.raises(UnknownOutcome):
        client.send_message(1, "hi")
    assert len(stub.requests) == 1


def test_broken_response_to_an_edit_is_retried(stub, client, sleeps):
    stub.answers = [DROP, (502, b"<html>"), (200, b'{"ok":true,"result":{"message_id":3}}')]
    assert client.edit_message_text(1, 3, "x") == {"message_id": 3}
    assert len(stub.requests) == 3 and sleeps == [0.5, 1.0]


def test_retry_unknown_overrides_the_default(stub, client):
    stub.answers = [DROP, (200, b'{"ok":true,"result":{"message_id":9}}')]
    assert client.send_message(1, "hi", retry_unknown=True) == {"message_id": 9}
    stub.answers = [DROP]
    with pytest.raises(UnknownOutcome):
        client.get_me(retry_unknown=False)


def test_connection_refused_is_retried_then_network_error(sleeps):
    client = TelegramClient(TOKEN, f"http://127.0.0.1:{free_port()}", sleep=sleeps.append)
    with pytest.raises(NetworkError) as caught:
        client.send_message(1, "hi")
    assert caught.value.description == "connection refused"
    assert sleeps == [0.5, 1.0]


def test_connect_retries_stop_when_backoff_passes_the_deadline(sleeps):
    client = TelegramClient(TOKEN, f"http://127.0.0.1:{free_port()}", sleep=sleeps.append)
    with pytest.raises(NetworkError):
        client.get_me(deadline=client.clock() + 0.7)
    assert sleeps == [0.5]


def test_payload_drops_none_and_serialises_markup(stub, client):
    class Markup:
        def to_dict(self):
            return {"inline_keyboard": [[{"text": "Go", "url": "https://example.org"}]]}

    client.send_message(5, "hello", reply_markup=Markup(), allow_paid_broadcast=True,
                        message_thread_id=None, protect_content=True)
    method, body = stub.requests[-1]
    assert method == "sendMessage"
    assert body == {"chat_id": 5, "text": "hello",
                    "reply_markup": {"inline_keyboard": [[{"text": "Go",
                                                           "url": "https://example.org"}]]},
                    "link_preview_options": {"is_disabled": True},
                    "allow_paid_broadcast": True, "protect_content": True}


@pytest.mark.parametrize("call, method, expected", [
    (lambda c: c.get_me(), "getMe", {}),
    (lambda c: c.copy_message(1, -100, 7), "copyMessage",
     {"chat_id": 1, "from_chat_id": -100, "message_id": 7}),
    (lambda c: c.edit_message_reply_markup(1, 7, {"inline_keyboard": []}),
     "editMessageReplyMarkup", {"chat_id": 1, "message_id": 7, "reply_markup": {"inline_keyboard": []}}),
    (lambda c: c.delete_message(1, 7), "deleteMessage", {"chat_id": 1, "message_id": 7}),
    (lambda c: c.answer_callback_query("q1", "Saved", show_alert=True), "answerCallbackQuery",
     {"callback_query_id": "q1", "text": "Saved", "show_alert": True}),
    (lambda c: c.get_chat_member(-100, 42), "getChatMember", {"chat_id": -100, "user_id": 42}),
    (lambda c: c.set_webhook("https://h/wh", "s3cret", ["message"]), "setWebhook",
     {"url": "https://h/wh", "secret_token": "s3cret", "allowed_updates": ["message"],
      "max_connections": 40, "drop_pending_updates": False}),
    (lambda c: c.get_webhook_info(), "getWebhookInfo", {}),
    (lambda c: c.delete_webhook(True), "deleteWebhook", {"drop_pending_updates": True}),
])
def test_wrappers_send_the_right_method_and_body(stub, client, call, method, expected):
    call(client)
    assert stub.requests[-1] == (method, expected)


def test_repr_hides_the_token():
    client = TelegramClient(TOKEN, connect_timeout=2.0, read_timeout=4.5)
    assert TOKEN not in repr(client)


def test_unserialisable_parameters_fail_without_sending(stub, client):
    with pytest.raises(TelegramError) as caught:
        client.send_message(1, "hi", latitude=float("nan"))
    assert type(caught.value) is TelegramError
    # A non-JSON object is a programming error and surfaces as one.
    with pytest.raises(TypeError):
        client.send_message(1, "hi", reply_markup=object())
    assert stub.requests == []
