"""Pure retry and pacing decisions for Bot API methods."""

from __future__ import annotations

from dataclasses import dataclass

from app.telegram.errors import NetworkError, RetryAfter, TelegramError, UnknownOutcome

# Methods whose repetition cannot produce a second visible message.
_IDEMPOTENT_PREFIXES = ("get", "edit", "delete", "set")
_IDEMPOTENT_METHODS = frozenset({"answerCallbackQuery"})

# Methods that put a message in front of the user and count against chat limits.
_MESSAGE_PREFIXES = ("send", "copyMessage", "forwardMessage", "editMessage")

# Methods Telegram counts against the bot's ~30 messages per second: every
# message put in front of a user, edits and deletes included (a pin posts a notice in the chat).
_COUNTED_PREFIXES = ("send", "copyMessage", "copyMessages", "forwardMessage", "forwardMessages",
                     "edit", "delete", "stopPoll", "pinChatMessage", "unpinChatMessage")

# Longest 429 wait a call without a deadline sits through in its own thread.
MAX_RETRY_WAIT = 60.0
# A 429 is waited out whenever it fits the caller's deadline (the real bound);
# this cap only stops a pathological server from looping a call forever.
MAX_RATE_LIMIT_WAITS = 20


def is_idempotent(method: str) -> bool:
    """Return True when repeating the call after an unknown outcome is harmless."""
    return method in _IDEMPOTENT_METHODS or method.startswith(_IDEMPOTENT_PREFIXES)


def is_paced_method(method: str) -> bool:
    """Return True for methods that go through per-chat pacing."""
    return method.startswith(_MESSAGE_PREFIXES)


def is_counted_method(method: str) -> bool:
    """Return True for calls that take a slot of the bot-wide budget."""
    return method.startswith(_COUNTED_PREFIXES)


@dataclass(frozen=True)
class Decision:
    """What to do after a failed attempt: retry after ``delay`` seconds, or raise."""

    retry: bool
    delay: float = 0.0


RAISE = Decision(False)


def decide(exc: TelegramError, attempt: int, *, now: float, deadline: float | None,
           max_retries: int, backoff: float, retry_unknown: bool) -> Decision:
    """Decide whether failed attempt number ``attempt`` (0-based) is retried."""
    if isinstance(exc, RetryAfter):
        delay = exc.retry_after
        # With a deadline, wait out every 429 that fits it; without one, a
        # caller's thread may block at most max_retries waits of <= 60 s.
        cap = MAX_RATE_LIMIT_WAITS if deadline is not None else max_retries
        if attempt >= cap or (deadline is None and delay > MAX_RETRY_WAIT):
            return RAISE
    elif attempt >= max_retries:
        return RAISE
    elif isinstance(exc, NetworkError) or (isinstance(exc, UnknownOutcome) and retry_unknown):
        delay = backoff * 2 ** attempt
    else:
        # Telegram's verdicts (400/401/403/404) and unsafe unknown outcomes.
        return RAISE
    if deadline is not None and now + delay > deadline:
        return RAISE
    return Decision(True, delay)
