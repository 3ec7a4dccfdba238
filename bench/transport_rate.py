"""Measure the broadcast rate the Telegram transport achieves against the simulator.

    .venv/bin/python -m bench.transport_rate --rate 25 --threads 4 --latency 20 80 150
"""

from __future__ import annotations

import argparse
import queue
import threading
import time

from app.simulator import SimulatorServer
from app.telegram import ChatPacer, RateLimiter, TelegramClient

TOKEN = "123456:BENCH-token-abcdefghijklmnop"


def measure(rate: float, threads: int, latency_ms: float, count: int, limit: int) -> dict:
    """Send ``count`` broadcast messages from ``threads`` threads; return the numbers."""
    sim = SimulatorServer(token=TOKEN, latency_ms=latency_ms, global_rate=limit).start()
    try:
        client = TelegramClient(TOKEN, sim.base_url, pool_size=threads,
                                rate_limiter=RateLimiter(rate), chat_pacer=ChatPacer())
        chats: queue.Queue = queue.Queue()
        for chat in range(1_000_001, 1_000_001 + count):
            chats.put(chat)
        failures: list[Exception] = []

        def worker() -> None:
            while True:
                try:
                    chat = chats.get_nowait()
                except queue.Empty:
                    return
                try:
                    client.send_message(chat, "bench", broadcast=True)
                except Exception as exc:  # noqa: BLE001 - counted, not fatal
                    failures.append(exc)

        started = time.monotonic()
        pool = [threading.Thread(target=worker) for _ in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        elapsed = time.monotonic() - started
        client.close()
        times = sorted(d["t"] for d in sim.deliveries(method="sendMessage"))
        stats = sim.stats()
    finally:
        sim.stop()
    span = times[-1] - times[0] if len(times) > 1 else float("nan")
    return {"latency_ms": latency_ms, "sent": len(times), "failures": len(failures),
            "429": stats["429_total"], "busiest_second": stats["busiest_second"],
            "achieved": (len(times) - 1) / span, "wall_rate": len(times) / elapsed}


def main() -> None:
    """Parse arguments and print one line per latency."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=25.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--count", type=int, default=250)
    parser.add_argument("--limit", type=int, default=30, help="simulated Telegram limit per second")
    parser.add_argument("--latency", type=float, nargs="+", default=[20.0, 80.0, 150.0])
    args = parser.parse_args()
    for latency in args.latency:
        r = measure(args.rate, args.threads, latency, args.count, args.limit)
        print(f"latency {r['latency_ms']:>5.0f} ms: sent {r['sent']}, failures {r['failures']}, "
              f"429s {r['429']}, achieved {r['achieved']:.2f}/s "
              f"({r['achieved'] / args.rate:.3f} of {args.rate:g}), wall {r['wall_rate']:.2f}/s, "
              f"busiest second {r['busiest_second']}")


if __name__ == "__main__":
    main()
