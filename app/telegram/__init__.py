"""Telegram Bot API transport: client, pacing, errors and the interactive outbox."""

from app.telegram.client import TelegramClient
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
    is_not_modified,
    is_recipient_error,
)
from app.telegram.outbox import Outbox
from app.telegram.pacing import ChatPacer, RateLimiter

__all__ = [
    "BadRequest",
    "ChatMigrated",
    "ChatPacer",
    "Forbidden",
    "NetworkError",
    "Outbox",
    "RateLimiter",
    "RetryAfter",
    "TelegramClient",
    "TelegramError",
    "TransientError",
    "Unauthorized",
    "UnknownOutcome",
    "is_not_modified",
    "is_recipient_error",
]
