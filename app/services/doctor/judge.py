"""Judge a deployment's configuration against the host's limits (pure): facts in, one verdict per check out.

Every figure a check assumes is a named constant here, stated in the deploy
guide: what one process of the bot costs is measured (docs/PERFORMANCE.md),
not read, since the doctor runs in a shell, not in a web worker.
"""
from __future__ import annotations

import math

from app.services.doctor.facts import FAIL, INFO, OK, UNKNOWN, Facts, Verdict
from app.services.doctor.judge_ops import cron_budget, cron_last_run, disks, queries, webhook

# One web worker after a day's work (webhooks, 📊, exports): the issue 39 budget, measured 85-100 MB.
WORKER_RSS_MB = 100
# One cron run that ends a broadcast and draws its summary picture (measured 152 MB).
CRON_RSS_MB = 160
# Page cache counts against PMEM on many hosts: the processes may take this share of the limit.
MEMORY_SHARE = 0.85
# Threads of one web worker at most (issue 39's ceiling); a cron run has its main threads plus its sends in flight.
WORKER_THREADS = 8
CRON_BASE_THREADS = 4
# The shells and commands an operator runs beside the bot (the terminal, cron's sh, a flask command).
OTHER_PROCESSES = 5
# Connections: each process keeps one per engine (the app's, the Telegram budget's), a cron run too, and
# a flask command in the terminal two more (app/config.py).
CONNECTIONS_PER_PROCESS = 2
# A pooled connection is recycled every MYSQL_POOL_RECYCLE_SECONDS (280): a worker reconnects about 13 times an hour.
RECONNECTS_PER_HOUR = math.ceil(3600 / 280)


def judge(facts: Facts) -> list[Verdict]:
    """Return one verdict per check, in the order the doctor prints them."""
    return [memory(facts), address_space(facts), threads(facts), connections(facts), connections_hourly(facts),
            queries(facts), cron_budget(facts), cron_last_run(facts), webhook(facts), *disks(facts)]


def fits(verdicts: list[Verdict]) -> bool:
    """Tell whether nothing failed (the exit code: 0 when True, 1 otherwise)."""
    return all(v.state != FAIL for v in verdicts)


def memory_need_mb(facts: Facts) -> int:
    """Return processes x a worker's RSS + one cron run."""
    return facts.processes * WORKER_RSS_MB + CRON_RSS_MB


def memory(facts: Facts) -> Verdict:
    """Check processes x worker RSS + cron against the memory limit's usable share."""
    need = memory_need_mb(facts)
    values = {"processes": facts.processes, "rss": WORKER_RSS_MB, "cron": CRON_RSS_MB, "need": need}
    if facts.memory_limit_mb is None:
        return Verdict("memory", INFO if facts.memory_read else UNKNOWN,
                       "doc_memory_unlimited" if facts.memory_read else "doc_memory_unread", values)
    usable = int(facts.memory_limit_mb * MEMORY_SHARE)
    values |= {"limit": int(facts.memory_limit_mb), "usable": usable}
    if need <= usable:
        return Verdict("memory", OK, "doc_memory_fits", values)
    most = max((usable - CRON_RSS_MB) // WORKER_RSS_MB, 0)
    return Verdict("memory", FAIL, "doc_memory_over", values, "doc_fix_processes", {"processes": most})


def address_space(facts: Facts) -> Verdict:
    """Check the per-process address-space rlimit leaves room for a worker's RSS (info when unlimited)."""
    if facts.address_space_mb is None:
        return Verdict("address_space", INFO, "doc_as_unlimited")
    values = {"limit": int(facts.address_space_mb), "rss": CRON_RSS_MB}
    if facts.address_space_mb > CRON_RSS_MB:
        return Verdict("address_space", INFO, "doc_as_set", values)
    return Verdict("address_space", FAIL, "doc_as_over", values, "doc_fix_host")


def threads_need(facts: Facts) -> int:
    """Return processes x a worker's threads + a cron run's + the operator's shells."""
    return facts.processes * WORKER_THREADS + CRON_BASE_THREADS + facts.broadcast_concurrency + OTHER_PROCESSES


def threads(facts: Facts) -> Verdict:
    """Check every thread of every process against NPROC (threads count as processes there)."""
    need = threads_need(facts)
    values = {"processes": facts.processes, "threads": WORKER_THREADS, "need": need}
    if facts.nproc_limit is None:
        return Verdict("nproc", INFO if facts.nproc_read else UNKNOWN,
                       "doc_nproc_unlimited" if facts.nproc_read else "doc_nproc_unread", values)
    values["limit"] = facts.nproc_limit
    if need <= facts.nproc_limit:
        return Verdict("nproc", OK, "doc_nproc_fits", values)
    spare = facts.nproc_limit - CRON_BASE_THREADS - facts.broadcast_concurrency - OTHER_PROCESSES
    return Verdict("nproc", FAIL, "doc_nproc_over", values, "doc_fix_processes",
                   {"processes": max(spare // WORKER_THREADS, 0)})


def connections(facts: Facts) -> Verdict:
    """Check two connections per worker, per cron run and per terminal command against the account's cap."""
    need = (facts.processes + 2) * CONNECTIONS_PER_PROCESS
    values = {"processes": facts.processes, "need": need}
    if facts.user_connections is None:
        return Verdict("connections", UNKNOWN, "doc_conn_unread", values)
    if facts.user_connections == 0:
        return Verdict("connections", INFO, "doc_conn_unlimited", values)
    values["limit"] = facts.user_connections
    if need <= facts.user_connections:
        return Verdict("connections", OK, "doc_conn_fits", values)
    most = max(facts.user_connections // CONNECTIONS_PER_PROCESS - 2, 0)
    return Verdict("connections", FAIL, "doc_conn_over", values, "doc_fix_processes", {"processes": most})


def connections_hourly(facts: Facts) -> Verdict:
    """Check the connections an hour opens (workers recycling, two per cron run) against the hourly cap."""
    cron_runs = 3600 // facts.cron_interval
    need = (facts.processes * RECONNECTS_PER_HOUR + cron_runs) * CONNECTIONS_PER_PROCESS
    values = {"need": need}
    if not facts.max_connections_per_hour:
        return Verdict("connections_hourly", INFO if facts.max_connections_per_hour == 0 else UNKNOWN,
                       "doc_connh_unlimited" if facts.max_connections_per_hour == 0 else "doc_connh_unread", values)
    values["limit"] = facts.max_connections_per_hour
    if need <= facts.max_connections_per_hour:
        return Verdict("connections_hourly", OK, "doc_connh_fits", values)
    return Verdict("connections_hourly", FAIL, "doc_connh_over", values, "doc_fix_host")
