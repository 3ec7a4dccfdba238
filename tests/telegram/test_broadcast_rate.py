"""Real-HTTP check that the global limiter holds a broadcast near its rate, 429-free."""

import queue
import threading

from app.telegram.client import TelegramClient
from app.telegram.pacing import ChatPacer, RateLimiter


def test_four_threads_reach_the_configured_rate_without_429(simulator):
    simulator.configure(latency_ms=20, global_rate=30)
    client = TelegramClient(simulator.token, simulator.base_url, pool_size=4,
                            rate_limiter=RateLimiter(rate=25), chat_pacer=ChatPacer())
    chats: queue.Queue = queue.Queue()
    for chat in range(10_001, 10_061):
        chats.put(chat)
    errors = []

    def worker():
        while True:
            try:
                chat = chats.get_nowait()
            except queue.Empty:
                return
            try:
                client.send_message(chat, "news", broadcast=True)
            except Exception as exc:  # noqa: BLE001 - collected for the assert below
                errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    client.close()
    assert errors == []
    times = sorted(d["t"] for d in simulator.deliveries(method="sendMessage"))
    assert len(times) == 60
    achieved = (len(times) - 1) / (times[-1] - times[0])
    # Loose on purpose: this asserts pacing works, not the machine's timing.
    assert 0.85 * 25 <= achieved <= 1.05 * 25, achieved
    assert simulator.stats()["429_total"] == 0
