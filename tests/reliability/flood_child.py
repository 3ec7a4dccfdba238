"""A child process that floods the webhook from one chat while other users send /start (Telegram's side).

    python -m tests.reliability.flood_child BASE FLOOD_USER FLOOD_COUNT FLOOD_THREADS OTHER_FIRST OTHER_COUNT
        OTHER_THREADS

The flooding user POSTs FLOOD_COUNT texts over FLOOD_THREADS connections (20/s with the defaults: twenty
times what Telegram lets the bot answer in one chat); at the same moment OTHER_COUNT users (ids from
OTHER_FIRST) each POST one /start over OTHER_THREADS connections. Each connection pauses between two posts,
so both last a few seconds side by side.
Prints one JSON object: {"flood": [[wall start, wall end, status], ...], "others": [...], "errors": [...]}.
"""
from __future__ import annotations

import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from app.simulator.updates import message_update
from tests.conftest import WEBHOOK_SECRET

FLOOD_UPDATE_BASE = 910_000_000
OTHER_UPDATE_BASE = 920_000_000
# Before each post on a connection: the flood lasts ~3 s, and the others arrive all through it.
FLOOD_PAUSE = 0.5
OTHER_PAUSE = 0.25


def poster(base: str, timings: list, lock: threading.Lock):
    """Return a function that POSTs one update on its thread's own connection and records its timing."""
    local = threading.local()

    def post(update: dict, pause: float = 0.0) -> None:
        session = getattr(local, "session", None)
        if session is None:
            session = local.session = requests.Session()
        time.sleep(pause)
        started = time.time()
        response = session.post(f"{base}/telegram/webhook", json=update, timeout=60,
                                headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET})
        with lock:
            timings.append([started, time.time(), response.status_code])

    return post


def main(base: str, flood_user: int, flood_count: int, flood_threads: int, other_first: int, other_count: int,
         other_threads: int) -> dict:
    """Run the flood and the others' /starts side by side; return every answer's timing."""
    lock = threading.Lock()
    flood: list[list] = []
    others: list[list] = []
    post_flood, post_other = poster(base, flood, lock), poster(base, others, lock)
    with ThreadPoolExecutor(flood_threads) as flood_pool, ThreadPoolExecutor(other_threads) as other_pool:
        futures = [flood_pool.submit(post_flood, message_update(flood_user, f"hello {i}", first_name="Flood",
                                                                update_id=FLOOD_UPDATE_BASE + i), FLOOD_PAUSE)
                   for i in range(flood_count)]
        futures += [other_pool.submit(post_other, message_update(other_first + i, "/start", first_name=f"Other {i}",
                                                                 update_id=OTHER_UPDATE_BASE + i), OTHER_PAUSE)
                    for i in range(other_count)]
        errors = [repr(f.exception()) for f in futures if f.exception() is not None]
    return {"flood": flood, "others": others, "errors": errors}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], *(int(a) for a in sys.argv[2:8]))))
