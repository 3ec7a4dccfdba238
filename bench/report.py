"""Print Markdown tables of the latest results (bench/results/*-latest.json), for docs/PERFORMANCE.md.

    .venv/bin/python -m bench.report
"""
from __future__ import annotations

import json
import os
import sys

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import (
    RESULTS,
)
from bench.output import print_table

TABLES = {
    "throughput": ["latency_ms", "sender", "msg_s", "of_cap", "delivered_s", "delivered", "lost", "not_attempted",
                   "429s", "early_calls", "busiest_all", "edits", "dups", "wall_s", "call_ms", "in_flight_avg",
                   "db_ms_item", "budget_stmts_item"],
    "throughput-whatif": ["latency_ms", "sender", "msg_s", "of_cap", "429s", "early_calls", "dups", "busiest_all",
                          "call_ms", "in_flight_avg", "db_ms_item"],
    "budget_burst": ["broadcaster", "latency_ms", "starts", "ok", "welcomed", "max_welcomes", "p50_ms", "p95_ms",
                     "max_ms", "bc_before_s", "bc_during_s", "bc_after_s", "all_during_s", "429s", "early_calls",
                     "busiest_all", "edits", "bc_sent", "wall_s"],
    "paid": ["db", "client", "conc", "msg_s", "of_target_800", "sent", "429s", "dups", "in_flight_avg", "call_ms",
             "slot_ms_item", "step_ms", "items_per_step", "db_ms_item", "budget_stmts_item", "engine_cpu_s",
             "sim_cpu_s", "db_cpu_s", "other_cpu_s", "wall_s"],
    "http_clients": ["client", "calls", "cpu_us_call", "wall_us_call", "sim_cpu_us_call", "calls_s_one_thread"],
    "engine_ceiling": ["db", "transport", "batch", "conc", "items_s", "db_ms_item", "db_exec_ms_item",
                       "db_commit_ms_item", "stmts_item", "commits_item", "step_ms_item", "engine_cpu_ms_item"],
    "population": ["db", "users", "populate_s", "create_job_s", "populate_runs_s", "create_job_runs_s",
                   "insert_users_s"],
    "cron_regime": ["tick", "pump_s", "sent", "send_window_s", "rate_s", "overhead_s", "stops"],
    "webhook_load": ["db", "workers", "threads", "updates", "ok", "errors", "updates_s", "p50_ms", "p90_ms",
                     "p99_ms", "max_ms", "welcomes", "users_stored", "worker1_cpu_s", "worker2_cpu_s", "db_cpu_s",
                     "other_cpu_s", "wall_s"],
}


def load(name: str) -> dict | None:
    path = os.path.join(RESULTS, f"{name}-latest.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main() -> int:
    names = list(TABLES) + ["throughput-free-mariadb", "throughput-free-sqlite", "throughput-late-10ms",
                            "throughput-ptb-retries", "paid-whatif", "webhook_load-t2"]
    for name in names:
        data = load(name)
        if data is None:
            continue
        columns = TABLES[name if name in TABLES else name.split("-")[0]]
        m, code = data["machine"], data.get("code", {})
        print(f"\n### {name}\n\n`{data['command']}` — {m['date']}, code {code.get('head', '?')}"
              f"{' (app/ modified)' if code.get('app_dirty') else ''}, engine {code.get('engine_sha1', '?')}, "
              f"load average at the end {', '.join(f'{x:.2f}' for x in m['loadavg'])}\n")
        print_table(data["rows"], columns)
        if name.startswith("cron_regime"):
            print("\n" + json.dumps(data["summary"], indent=1))
        if name == "engine_ceiling":
            print_table(data.get("probes", []), ["db", "select1_ms", "update_commit_ms"])
        for who, summary in (data.get("profiles") or {}).items():
            for proc, prof in (summary.items() if "buckets_pct" not in summary else [("", summary)]):
                print(f"\nprofile {who} {proc}: " + ", ".join(f"{k} {v} %" for k, v in prof["buckets_pct"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
