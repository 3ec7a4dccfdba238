"""Error classes, payload mapping and the pure classifiers."""

import pickle

import pytest

from app.telegram.errors import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TransientError,
    Unauthorized,
    UnknownOutcome,
    error_from_payload,
    is_not_modified,
    is_recipient_error,
)


def payload(code, description="x", **parameters):
    body = {"ok": False, "error_code": code, "description": description}
    if parameters:
        body["parameters"] = parameters
    return body


@pytest.mark.parametrize("code, params, cls", [
    (429, {"retry_after": 7}, RetryAfter),
    (403, {}, Forbidden),
    (400, {}, BadRequest),
    (400, {"migrate_to_chat_id": -100555}, ChatMigrated),
    (401, {}, Unauthorized),
    (404, {}, Unauthorized),
    (502, {}, UnknownOutcome),
    (409, {}, TelegramError),
])
def test_payload_maps_to_exception_class(code, params, cls):
    exc = error_from_payload("sendMessage", code, payload(code, "why", **params))
    assert type(exc) is cls
    assert exc.method == "sendMessage" and exc.description == "why" and exc.error_code == code
    assert str(exc) == "sendMessage: why"


def test_retry_after_and_migration_parameters():
    exc = error_from_payload("sendMessage", 429, payload(429, "Too Many Requests", retry_after=3))
    assert exc.retry_after == 3.0
    missing = error_from_payload("sendMessage", 429, payload(429, "Too Many Requests"))
    assert missing.retry_after == 5.0
    migrated = error_from_payload("sendMessage", 400, payload(400, "migrated",
                                                              migrate_to_chat_id=-1009))
    assert migrated.new_chat_id == -1009 and isinstance(migrated, BadRequest)


def test_transient_hierarchy():
    assert issubclass(NetworkError, TransientError)
    assert issubclass(UnknownOutcome, TransientError)
    assert not issubclass(RetryAfter, TransientError)


def test_repr_and_pickle_keep_attributes():
    exc = RetryAfter("sendMessage", 2.5)
    assert "RetryAfter" in repr(exc) and "sendMessage" in repr(exc)
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is RetryAfter and copy.retry_after == 2.5 and str(copy) == str(exc)
    migrated = pickle.loads(pickle.dumps(ChatMigrated("sendMessage", -5)))
    assert migrated.new_chat_id == -5


@pytest.mark.parametrize("exc", [
    Forbidden("sendMessage", "Forbidden: bot was blocked by the user", 403),
    Forbidden("sendMessage", "Forbidden: user is deactivated", 403),
    Forbidden("sendMessage", "Forbidden: something new", 403),
    BadRequest("sendMessage", "Bad Request: chat not found", 400),
    BadRequest("sendMessage", "Bad Request: user not found", 400),
    BadRequest("sendMessage", "Bad Request: PEER_ID_INVALID", 400),
    BadRequest("sendMessage", "Forbidden: bot can't initiate conversation with a user", 400),
    BadRequest("sendMessage", "Bad Request: have no rights to send a message", 400),
    BadRequest("sendMessage", "Bad Request: CHAT_WRITE_FORBIDDEN", 400),
    BadRequest("sendMessage", "Bad Request: user is deactivated", 400),
    BadRequest("sendMessage", "Bad Request: bot was kicked from the group chat", 400),
])
def test_recipient_errors(exc):
    assert is_recipient_error(exc)


@pytest.mark.parametrize("exc", [
    BadRequest("copyMessage", "Bad Request: message to copy not found", 400),
    BadRequest("sendMessage", "Bad Request: can't parse entities: bad tag", 400),
    BadRequest("sendMessage", "Bad Request: message is too long", 400),
    BadRequest("sendMessage", "Bad Request: BUTTON_URL_INVALID", 400),
    ChatMigrated("sendMessage", -100),
    Unauthorized("sendMessage", "Unauthorized", 401),
    UnknownOutcome("sendMessage", "Internal Server Error", 500),
    NetworkError("sendMessage", "connection refused"),
    RetryAfter("sendMessage", 3),
    ValueError("chat not found"),
])
def test_content_or_bot_errors_are_not_recipient_errors(exc):
    assert not is_recipient_error(exc)


def test_not_modified():
    assert is_not_modified(BadRequest("editMessageText",
                                      "Bad Request: message is not modified: specified new "
                                      "message content and reply markup are exactly the same", 400))
    assert not is_not_modified(BadRequest("editMessageText", "message to edit not found", 400))
    assert not is_not_modified(ValueError("message is not modified"))
