"""python-telegram-bot 22 itself talks to the simulator and parses every answer."""

from __future__ import annotations

import asyncio

import pytest
import telegram
from telegram import InlineKeyboardButton, InlineKeyboardMarkup


def _run(sim, scenario):
    async def main():
        bot = telegram.Bot(sim.token, base_url=f"{sim.base_url}/bot")
        async with bot:
            return await scenario(bot)
    return asyncio.run(main())


def test_ptb_bot_round_trip(sim):
    sim.configure(per_chat_limits=False)
    sim.set_member(-1001234567890, 5, "member")
    source = sim.add_message(1001, text="post")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])

    async def scenario(bot):
        sent = await bot.send_message(5, "<b>سلام</b> 🌹", parse_mode="HTML", reply_markup=markup)
        copied = await bot.copy_message(6, 1001, source)
        edited = await bot.edit_message_text("v2", chat_id=5, message_id=sent.message_id)
        member = await bot.get_chat_member(-1001234567890, 5)
        await bot.set_webhook("https://example.com/hook", secret_token="abc")
        info = await bot.get_webhook_info()
        return sent, copied, edited, member, info

    sent, copied, edited, member, info = _run(sim, scenario)
    assert sent.text == "سلام 🌹" and sent.entities[0].type == "bold"
    assert sent.reply_markup == markup and copied.message_id == 1
    assert edited.text == "v2" and member.status == "member"
    assert info.url == "https://example.com/hook"


def test_ptb_bot_sees_telegram_errors(sim):
    sim.block(9)
    sim.configure(global_rate=1)

    async def blocked(bot):
        await bot.send_message(9, "x")

    with pytest.raises(telegram.error.Forbidden, match="blocked by the user"):
        _run(sim, blocked)

    async def flood(bot):
        await bot.send_message(10, "a")
        await bot.send_message(11, "b")

    with pytest.raises(telegram.error.RetryAfter) as info:
        _run(sim, flood)
    retry = info.value.retry_after  # int, or timedelta when PTB_TIMEDELTA is set
    assert (retry if isinstance(retry, int) else retry.total_seconds()) >= 1
