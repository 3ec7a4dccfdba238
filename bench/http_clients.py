"""Supporting evidence for benchmark 2: client-side CPU per Bot API call, by HTTP client.

Sequential sendMessage calls from one thread to a zero-latency, unlimited
simulator process; reports this process's CPU per call (time.process_time), which
is what bounds one GIL-bound pump process. Variants:
  engine        the engine's own TelegramClient.call (its urllib3 Transport, pacing off)
  requests      requests.Session().post(json=...) (trust_env on; the engine's client before it moved to urllib3)
  requests_noenv  the same with trust_env=False (proxies resolved once instead of per call)
  urllib3       urllib3.HTTPConnectionPool.request(json=...)
  http.client   http.client.HTTPConnection keep-alive with json.dumps/loads

    .venv/bin/python -m bench.http_clients [--calls 2000]
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import time
from urllib.parse import urlsplit

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import requests
import urllib3

from bench.common import (
    BASE_ID,
    TEXT,
    TOKEN,
    Simulator,
)
from bench.output import print_table, write_results

COLUMNS = ["client", "calls", "cpu_us_call", "wall_us_call", "sim_cpu_us_call", "calls_s_one_thread"]


def payload(i: int) -> dict:
    return {"chat_id": BASE_ID + i, "text": TEXT, "parse_mode": "HTML", "allow_paid_broadcast": True,
            "link_preview_options": {"is_disabled": True}}


def make_senders(sim: Simulator) -> dict:
    """Return name -> (setup() -> send(i)) for every variant."""
    api = sim.api_url

    def engine():
        from app.telegram.client import TelegramClient

        client = TelegramClient(TOKEN, sim.base_url, pool_size=4)
        return lambda i: client.call("sendMessage", payload(i), retry_unknown=False, broadcast=True)

    def req(trust_env: bool):
        def setup():
            s = requests.Session()
            if not trust_env:
                s.proxies = requests.utils.get_environ_proxies(api)
                s.trust_env = False
            return lambda i: s.post(f"{api}/sendMessage", json=payload(i), timeout=(3, 10)).json()
        return setup

    def u3():
        parts = urlsplit(sim.base_url)
        pool = urllib3.HTTPConnectionPool(parts.hostname, parts.port, maxsize=4, retries=False)
        path = f"/bot{TOKEN}/sendMessage"
        return lambda i: json.loads(pool.request("POST", path, json=payload(i)).data)

    def hc():
        parts = urlsplit(sim.base_url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        path = f"/bot{TOKEN}/sendMessage"

        def send(i):
            body = json.dumps(payload(i)).encode()
            conn.request("POST", path, body, {"Content-Type": "application/json"})
            return json.loads(conn.getresponse().read())
        return send

    return {"engine TelegramClient": engine, "requests": req(True), "requests_noenv": req(False),
            "urllib3": u3, "http.client": hc}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args(argv)
    rows = []
    with Simulator(latency_ms=0, global_rate=0, paid_rate=0, per_chat_limits=False) as sim:
        for name, setup in make_senders(sim).items():
            send = setup()
            for i in range(50):  # warm up: connections, caches
                send(i)
            sim_cpu0, cpu0, wall0 = sim.cpu_seconds(), time.process_time(), time.perf_counter()
            for i in range(args.calls):
                send(i)
            cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
            sim_cpu = sim.cpu_seconds() - sim_cpu0
            rows.append({"client": name, "calls": args.calls, "cpu_us_call": round(1e6 * cpu / args.calls),
                         "wall_us_call": round(1e6 * wall / args.calls),
                         "sim_cpu_us_call": round(1e6 * sim_cpu / args.calls),
                         "calls_s_one_thread": round(args.calls / wall)})
            print_table(rows[-1:], COLUMNS)
    print_table(rows, COLUMNS, title="Client CPU per sendMessage (one thread, zero-latency simulator)")
    write_results("http_clients", args, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
