"""Exceptions for Bot API failures and pure helpers that classify them."""

from __future__ import annotations

from typing import Any

# The wait after a 429 naming no valid retry_after: enough not to hammer the limit, short enough to resume soon.
DEFAULT_RETRY_AFTER = 5.0

# Telegram phrases (lower-cased) that blame the recipient, not the content.
_RECIPIENT_PHRASES = (
    "chat not found",
    "user not found",
    "peer_id_invalid",
    "bot can't initiate conversation",
    "have no rights to send a message",
    "not enough rights to send",
    "chat_write_forbidden",
    "user is deactivated",
    "bot was kicked",
    "bot was blocked",
    "bot is not a member",
    "group chat was deactivated",
    "chat_restricted",
    "bots can't send messages to bots",
    "bot can't send messages to bots",
)

# Telegram's answers (lower-cased) when a paid message cannot be paid from the bot's Stars balance:
# BALANCE_TOO_LOW is its API's error for a Stars balance too low; the other is a plain wording of it.
_NO_STARS_PHRASES = ("balance_too_low", "not enough stars")


class TelegramError(Exception):
    """Raise when a Bot API call fails; str() never holds a URL or token."""

    def __init__(self, method: str, description: str, error_code: int | None = None):
        super().__init__(f"{method}: {description}")
        self.method = method
        self.description = description
        self.error_code = error_code

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(method={self.method!r}, "
                f"error_code={self.error_code!r}, description={self.description!r})")

    def __reduce__(self):
        # Exceptions pickle via self.args, which holds the formatted message only.
        return (_rebuild, (type(self), dict(self.__dict__)))


def _rebuild(cls: type, state: dict) -> TelegramError:
    """Recreate an unpickled error without calling its __init__."""
    err = cls.__new__(cls)
    Exception.__init__(err, f"{state.get('method')}: {state.get('description')}")
    err.__dict__.update(state)
    return err


class RetryAfter(TelegramError):
    """Raise on 429 (or a refused pacing slot): come back after retry_after seconds."""

    def __init__(self, method: str, retry_after: float = DEFAULT_RETRY_AFTER,
                 description: str | None = None, error_code: int | None = 429):
        self.retry_after = float(retry_after)
        super().__init__(method, description or f"Too Many Requests: retry after {retry_after:g}",
                         error_code)


class ChatBusy(RetryAfter):
    """Raise when a chat's next slot is further off than the caller would wait (nothing was booked or sent)."""

    def __init__(self, method: str, retry_after: float):
        super().__init__(method, retry_after, "chat pacing: the chat's next slot is too far off", error_code=None)


class Forbidden(TelegramError):
    """Raise on 403: the bot was blocked, kicked, or the user is deactivated."""


class BadRequest(TelegramError):
    """Raise on 400 with Telegram's description kept."""


class ChatMigrated(BadRequest):
    """Raise on 400 when a group became a supergroup with a new chat id."""

    def __init__(self, method: str, new_chat_id: int, description: str | None = None,
                 error_code: int | None = 400):
        self.new_chat_id = new_chat_id
        super().__init__(method, description or f"Group migrated to {new_chat_id}", error_code)


class Unauthorized(TelegramError):
    """Raise on 401/404: the token is wrong or revoked."""


class TransientError(TelegramError):
    """Base for failures that are not Telegram's verdict on the request."""


class NetworkError(TransientError):
    """Raise when the request never reached Telegram: it was NOT delivered."""


class UnknownOutcome(TransientError):
    """Raise when the request was sent but no verdict came back: it MAY have been delivered."""


def is_recipient_error(exc: BaseException) -> bool:
    """Return True when the error says the recipient cannot receive messages."""
    if isinstance(exc, Forbidden):
        return True
    if not isinstance(exc, BadRequest) or isinstance(exc, ChatMigrated):
        # ChatMigrated has a live recipient under new_chat_id; callers follow it.
        return False
    text = exc.description.lower()
    return any(phrase in text for phrase in _RECIPIENT_PHRASES)


def is_stars_shortage(exc: BaseException) -> bool:
    """Return True when Telegram refused a paid message because the bot's Stars balance cannot pay it."""
    return isinstance(exc, BadRequest) and any(p in exc.description.lower() for p in _NO_STARS_PHRASES)


def is_not_modified(exc: BaseException) -> bool:
    """Return True for the harmless 'message is not modified' edit error."""
    return isinstance(exc, TelegramError) and "message is not modified" in exc.description.lower()


def error_from_payload(method: str, status: int, payload: dict[str, Any]) -> TelegramError:
    """Map an ``ok: false`` Bot API answer (and its HTTP status) to an exception."""
    code = payload.get("error_code") or status
    if not isinstance(code, int):
        code = status
    description = str(payload.get("description") or f"HTTP {status}")
    params = payload.get("parameters") or {}
    if not isinstance(params, dict):
        params = {}
    if code == 429:
        return RetryAfter(method, _retry_after(params), description)
    if code == 400 and params.get("migrate_to_chat_id") is not None:
        return ChatMigrated(method, int(params["migrate_to_chat_id"]), description)
    if code == 400:
        return BadRequest(method, description, code)
    if code in (401, 404):
        return Unauthorized(method, description, code)
    if code == 403:
        return Forbidden(method, description, code)
    if code >= 500:
        return UnknownOutcome(method, description, code)
    return TelegramError(method, description, code)


def _retry_after(params: dict[str, Any]) -> float:
    """Read parameters.retry_after, falling back to the default when absent or invalid."""
    try:
        value = float(params["retry_after"])
    except (KeyError, TypeError, ValueError):
        return DEFAULT_RETRY_AFTER
    return value if value >= 0 else DEFAULT_RETRY_AFTER
