"""The hand-written senders the engine is compared with, each against its own fresh simulator.

Every function sends TEXT once to each user id and returns client-side counts;
the caller reads 429s, deliveries and duplicates from the simulator itself.
"""
from __future__ import annotations

import asyncio
import logging
import time

import requests

from bench.common import (
    TEXT,
    TOKEN,
)


def _post(session: requests.Session, api_url: str, user_id: int):
    """POST one sendMessage; return (HTTP status, decoded body or None)."""
    try:
        r = session.post(f"{api_url}/sendMessage", json={"chat_id": user_id, "text": TEXT, "parse_mode": "HTML"},
                         timeout=(3, 10))
        return r.status_code, r.json()
    except (requests.RequestException, ValueError):
        return None, None


def naive_loop(api_url: str, users: list[int], max_seconds: float, retry_429: bool = False) -> dict:
    """`for user: post sendMessage`, optionally sleeping retry_after and retrying after a 429."""
    ok = failed = sleeps = 0
    slept = 0.0
    started = time.monotonic()
    with requests.Session() as session:
        for user_id in users:
            if time.monotonic() - started > max_seconds:
                break
            while True:
                status, body = _post(session, api_url, user_id)
                if status == 200:
                    ok += 1
                elif status == 429 and retry_429 and time.monotonic() - started < max_seconds:
                    wait = float(((body or {}).get("parameters") or {}).get("retry_after", 1))
                    sleeps += 1
                    slept += wait
                    time.sleep(wait)
                    continue
                else:
                    failed += 1
                break
    return {"attempted": ok + failed, "client_ok": ok, "failures": failed, "retry_sleeps": sleeps,
            "slept_s": round(slept, 1), "wall_s": time.monotonic() - started}


def ptb_rate_limited(base_url: str, users: list[int], max_seconds: float, concurrency: int = 8,
                     max_retries: int = 0) -> dict:
    """python-telegram-bot 22: ExtBot with AIORateLimiter (defaults), asyncio.gather under a semaphore."""
    return asyncio.run(_ptb(base_url, users, max_seconds, concurrency, max_retries))


async def _ptb(base_url: str, users: list[int], max_seconds: float, concurrency: int, max_retries: int) -> dict:
    from telegram.error import RetryAfter, TelegramError
    from telegram.ext import AIORateLimiter, ExtBot
    from telegram.request import HTTPXRequest

    # PTB logs every 429 it gives up on with a traceback; the counts below say the same.
    logging.getLogger("telegram.ext.AIORateLimiter").setLevel(logging.CRITICAL)
    limiter = AIORateLimiter(max_retries=max_retries)  # overall_max_rate=30/s, group 20/min
    request = HTTPXRequest(connection_pool_size=concurrency + 4, read_timeout=10)
    bot = ExtBot(TOKEN, base_url=f"{base_url}/bot", request=request, rate_limiter=limiter)
    counts = {"client_ok": 0, "failures": 0, "retry_after_errors": 0}
    sem = asyncio.Semaphore(concurrency)

    async def one(user_id: int) -> None:
        async with sem:
            if time.monotonic() - started > max_seconds:
                return
            try:
                await bot.send_message(user_id, TEXT, parse_mode="HTML")
                counts["client_ok"] += 1
            except RetryAfter:
                counts["retry_after_errors"] += 1
                counts["failures"] += 1
            except TelegramError:
                counts["failures"] += 1

    async with bot:  # initialize(): one getMe
        started = time.monotonic()
        await asyncio.gather(*(one(u) for u in users))
        wall = time.monotonic() - started
    return {"attempted": counts["client_ok"] + counts["failures"], **counts, "wall_s": wall,
            "concurrency": concurrency, "max_retries": max_retries}
