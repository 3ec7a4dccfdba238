"""A child process that POSTs one /start per new user to the webhook (Telegram's side of a burst).

    python -m tests.reliability.start_burst_child BASE FIRST_USER COUNT THREADS

Prints one JSON object: {"timings": [[wall start, wall end, status], ...], "errors": [...]}.
Its own process, so the client threads never compete for the GIL with the simulator in the test process.
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

# Update ids far from anything else a test sends.
UPDATE_ID_BASE = 900_000_000


def main(base: str, first: int, count: int, threads: int) -> dict:
    """Send the burst and return every answer's timing."""
    local = threading.local()
    lock = threading.Lock()
    timings: list[list] = []

    def one(i: int) -> None:
        session = getattr(local, "session", None)
        if session is None:
            session = local.session = requests.Session()
        user_id = first + i
        update = message_update(user_id, "/start", first_name=f"New {i}", update_id=UPDATE_ID_BASE + i)
        started = time.time()
        response = session.post(f"{base}/telegram/webhook", json=update, timeout=60,
                                headers={"X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET})
        with lock:
            timings.append([started, time.time(), response.status_code])

    errors = []
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(one, i) for i in range(count)]:
            if future.exception() is not None:
                errors.append(repr(future.exception()))
    return {"timings": timings, "errors": errors}


if __name__ == "__main__":
    base_url, first_user, n, n_threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    print(json.dumps(main(base_url, first_user, n, n_threads)))
