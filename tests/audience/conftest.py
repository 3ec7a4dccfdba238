"""Audience tests share the bot tests' fast Telegram (no per-chat pacing)."""
from tests.bot.conftest import fast_telegram  # noqa: F401
