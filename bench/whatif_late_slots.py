"""What-if: a broadcast send that wakes too long after its bot-wide slot gives the slot up and books a fresh one.

Measures a proposed engine change without editing app/: Pump.send is wrapped so
that, after sleeping to its slot, a send later than --tolerance-ms books a new
slot on the same lane (and sleeps to it) instead of going out late. A late send
followed by on-time ones packs more than the cap into one second: with the cap
at 29 against Telegram's 30, one slot (34 ms) of lateness is enough for a 429.
Then runs bench.throughput (engine only) with the remaining arguments and prints
how late sends left (slot to HTTP request, first attempt) and how many slots were given up.

    .venv/bin/python -m bench.whatif_late_slots [--tolerance-ms 10] [throughput options, e.g. --db mariadb --users 750]
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def install(tolerance: float) -> dict:
    """Wrap Pump.send (void late slots when tolerance > 0) and Transport.post (record departures)."""
    from app.services.broadcast.sending.pump import Pump
    from app.telegram.transport import Transport

    seen = {"slots": {}, "posts": {}, "voided": 0}
    lock = threading.Lock()
    send, post = Pump.send, Transport.post

    def late_send(pump, method, params, user_id, slot=None):
        if slot is not None and tolerance > 0:
            at, booked_at = slot
            if (delay := at - pump.clock()) > 0:
                pump.sleep(delay)
            while pump.clock() - at > tolerance:  # woke too late: this slot is void, take a fresh one
                with lock:
                    seen["voided"] += 1
                booked_at = pump.clock()
                fresh = pump.client.broadcast_budget.acquire_many(1, pump.deadline)
                if not fresh:
                    from app.services.broadcast.sending.outcomes import HELD_BACK

                    return HELD_BACK
                at = fresh[0]
                if (delay := at - pump.clock()) > 0:
                    pump.sleep(delay)
            slot = (at, booked_at)
        if slot is not None:
            seen["slots"][user_id] = slot[0]
        return send(pump, method, params, user_id, slot)

    def timed_post(transport, method, payload, **kwargs):
        with lock:
            seen["posts"].setdefault(payload.get("chat_id"), time.monotonic())
        return post(transport, method, payload, **kwargs)

    Pump.send, Transport.post = late_send, timed_post
    return seen


def lateness(seen: dict) -> dict:
    """Percentiles of (first request − its slot) in ms over broadcast sends."""
    late = sorted(1000 * (seen["posts"][c] - at) for c, at in seen["slots"].items() if c in seen["posts"])
    if not late:
        return {}

    def q(p):
        return round(late[int(p * (len(late) - 1))], 1)

    return {"sends": len(late), "p50_ms": q(0.5), "p99_ms": q(0.99), "max_ms": q(1.0),
            "over_one_interval": sum(1 for x in late if x > 1000 / 29), "voided": seen["voided"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tolerance-ms", type=float, default=10, help="0: the engine as it is (lateness only)")
    args, rest = parser.parse_known_args(argv)
    from bench import throughput

    seen = install(args.tolerance_ms / 1000)
    run_engine = throughput.run_engine

    def per_latency(url, latency, users, targs):
        seen["slots"].clear()
        seen["posts"].clear()
        seen["voided"] = 0
        row = run_engine(url, latency, users, targs)
        row["lateness"] = lateness(seen)
        print(f"{latency:g} ms: departure lateness (slot → first request), tolerance {args.tolerance_ms:g} ms:",
              row["lateness"])
        return row

    throughput.run_engine = per_latency
    return throughput.main(["--senders", "engine", "--tag", f"late-{args.tolerance_ms:g}ms", *rest])


if __name__ == "__main__":
    sys.exit(main())
