"""The engine's figures for two git revisions in one run, alternating the revisions trial by trial.

Each revision is extracted with `git archive REV | tar -x` into a temporary
directory; by default this checkout's bench/ is copied over it (--bench current),
so both revisions are measured by the same scripts and only app/ differs
(--bench own keeps each revision's scripts, for revisions whose app/ the current
scripts no longer fit). Both run with this interpreter (the project's venv).

Per trial and per benchmark, the two revisions run back to back, the first of
the pair swapping every trial (A B, then B A, ...), so a change in the
machine's load falls on both. Figures:

  free msg/s at each latency   bench.throughput --senders engine (cap 29, progress edits on), with
                               the statements per message (app engine + bot-wide budget, as SQLAlchemy
                               runs them), the queries per message (everything the database received,
                               COMMITs included: the server's Questions on MariaDB, the driver's trace
                               on SQLite; bench/questions.py) and the most database connections the
                               process held at once
  paid msg/s                   bench.paid (900/s configured, 64 in flight), with its statements and
                               queries per message and connections
  cron: items per tick         bench.cron_regime --ticks 1: one pump_all(cron_pump_seconds),
                               what /internal/pump and `flask broadcast pump` run by default

    .venv/bin/python -m bench.compare de16a61 HEAD --trials 2
    .venv/bin/python -m bench.compare main main --trials 1 --db sqlite --users 100 --latencies 80 \
        --paid-users 1000 --cron-seconds 5      # a quick check that it runs (under a minute)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ROOT
from bench.output import print_table, write_results

BENCH_DIR = os.path.join(ROOT, "bench")


def resolve(rev: str) -> str:
    """The short commit hash git gives REV in this repository."""
    return subprocess.run(["git", "rev-parse", "--short", rev + "^{commit}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()


def extract(commit: str, parent: str, own_bench: bool) -> str:
    """Write commit's tree to parent/<commit>/; overlay this checkout's bench/ unless own_bench; return the dir."""
    target = os.path.join(parent, commit)
    os.makedirs(target)
    archive = subprocess.Popen(["git", "archive", commit], cwd=ROOT, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", target], stdin=archive.stdout, check=True)
    archive.stdout.close()
    if archive.wait() != 0:
        raise SystemExit(f"git archive {commit} failed")
    if not own_bench:
        shutil.rmtree(os.path.join(target, "bench"), ignore_errors=True)
        shutil.copytree(BENCH_DIR, os.path.join(target, "bench"),
                        ignore=shutil.ignore_patterns("results", "__pycache__"))
    # The revision's own app/ must be the one imported, not an installed copy.
    where = subprocess.run([sys.executable, "-c", "import app; print(app.__file__)"], cwd=target,
                           check=True, capture_output=True, text=True).stdout.strip()
    if not where.startswith(target):
        raise SystemExit(f"{commit}: 'import app' resolves to {where}, not the extracted tree")
    return target


def run_bench(tree: str, module: str, args: list[str], result: str) -> dict:
    """Run `python -m bench.<module> args` inside tree; return its bench/results/<result>-latest.json."""
    cmd = [sys.executable, "-m", f"bench.{module}", *args]
    print(f"  $ (cd {tree} && python {' '.join(cmd[1:])})", flush=True)
    done = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"bench.{module} failed in {tree}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    with open(os.path.join(tree, "bench", "results", f"{result}-latest.json")) as f:
        return json.load(f)


def free(tree: str, opts) -> dict:
    """Broadcast msg/s and 429s per latency from bench.throughput's engine rows."""
    extra = ["--jitter", f"{opts.jitter:g}"] + (["--concurrency", str(opts.concurrency)] if opts.concurrency else [])
    data = run_bench(tree, "throughput", ["--db", opts.db, "--users", str(opts.users), "--senders", "engine",
                                          "--latencies", *(f"{x:g}" for x in opts.latencies), "--tag", "compare",
                                          *extra], "throughput-compare")
    rates = {f"free msg/s at {row['latency_ms']:g} ms": row["msg_s"] for row in data["rows"]}
    rates |= {f"free of cap at {row['latency_ms']:g} ms": row["of_cap"] for row in data["rows"]}
    rates |= {f"free early calls at {row['latency_ms']:g} ms": row["early_calls"] for row in data["rows"]}
    rates |= {f"free lane spread ms at {row['latency_ms']:g} ms": row["spread_ms"] for row in data["rows"]
              if row.get("spread_ms") is not None}
    # Every statement the engine ran per message delivered: the app engine's (claims, outcomes,
    # counters, fences) and the bot-wide budget's (slots, holds, chats), commits not counted.
    rates |= {f"free statements per msg at {row['latency_ms']:g} ms":
              round(row.get("db_stmts_item", 0) + row.get("budget_stmts_item", 0), 2) for row in data["rows"]}
    # Beside it, black-box: all the database received per message (bench/questions.py), COMMITs,
    # ROLLBACKs and the driver's own statements included, as a host's queries-per-hour cap counts.
    rates |= {f"free queries per msg ({row['queries_source']}) at {row['latency_ms']:g} ms": row["queries_msg"]
              for row in data["rows"] if "queries_msg" in row}
    rates |= {f"free queries per msg sending, creation left out, at {row['latency_ms']:g} ms": row["queries_send_msg"]
              for row in data["rows"] if "queries_send_msg" in row}
    rates |= {f"free connections held at once at {row['latency_ms']:g} ms": row["connections"]
              for row in data["rows"] if "connections" in row}
    return rates | {f"free 429s at {row['latency_ms']:g} ms": row["429s"] for row in data["rows"]}


def paid(tree: str, opts) -> dict:
    """Paid msg/s and 429s from bench.paid."""
    rate = [] if opts.paid_rate is None else ["--rate", f"{opts.paid_rate:g}"]
    result = "paid" if opts.paid_rate is None else "paid-whatif"  # bench.paid tags a non-default rate "whatif"
    row = run_bench(tree, "paid", ["--db", opts.db, "--users", str(opts.paid_users), *rate], result)["rows"][0]
    cpu = {"paid engine CPU ms per item": round(1000 * row["engine_cpu_s"] / max(row["sent"], 1), 3)} \
        if row.get("engine_cpu_s") is not None else {}
    statements = {"paid statements per msg": round(row["db_statements_item"] + row.get("budget_stmts_item", 0), 3)} \
        if "db_statements_item" in row else {}
    queries = {f"paid queries per msg ({row['queries_source']})": row["queries_msg"]} if "queries_msg" in row else {}
    if "queries_send_msg" in row:
        queries["paid queries per msg sending, creation left out"] = row["queries_send_msg"]
    held = {"paid connections held at once": row["connections"]} if "connections" in row else {}
    return {"paid msg/s": row["msg_s"], "paid 429s": row["429s"], **cpu, **statements, **queries, **held}


def cron(tree: str, opts) -> dict:
    """Items one pump_all(cron seconds) delivers, from bench.cron_regime's single tick."""
    seconds = opts.cron_seconds
    data = run_bench(tree, "cron_regime", ["--db", opts.db, "--ticks", "1", "--pump-seconds", f"{seconds:g}",
                                           "--tick-seconds", f"{seconds + 3:g}"], "cron_regime")
    row = data["rows"][0]
    return {f"cron: items per pump_all({seconds:g} s)": row["sent"], "cron: 429s in the tick": row["429s"]}


BENCHES = {"free": free, "paid": paid, "cron": cron}


def cell(values: list[float]) -> str:
    """Mean of the trials, then each trial's value when there are several."""
    mean = statistics.fmean(values)
    text = f"{mean:.4g}"
    return text + (" (" + ", ".join(f"{v:g}" for v in values) + ")" if len(values) > 1 else "")


def table(revs: list[str], samples: dict[str, dict[str, list[float]]]) -> list[dict]:
    """One row per figure: each revision's cell and B's mean over A's."""
    a, b = revs
    rows = []
    for figure in dict.fromkeys([*samples[a], *samples[b]]):
        va, vb = samples[a].get(figure, []), samples[b].get(figure, [])
        mean_a = statistics.fmean(va) if va else 0.0
        ratio = f"{statistics.fmean(vb) / mean_a:.3f}" if vb and mean_a else "—"
        rows.append({"figure": figure, a: cell(va) if va else "—", b: cell(vb) if vb else "—", "ratio": ratio})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rev_a", help="the revision before (any git revision: hash, branch, HEAD~3)")
    parser.add_argument("rev_b", help="the revision after; ratio = B / A")
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--db", choices=["sqlite", "mariadb"], default="mariadb")
    parser.add_argument("--users", type=int, default=600, help="free broadcast recipients per latency (~21 s at 29/s)")
    parser.add_argument("--latencies", type=float, nargs="+", default=[20, 80, 150])
    parser.add_argument("--jitter", type=float, default=0.10, help="free: latency ± this fraction (0.25: ± 25 %%)")
    parser.add_argument("--concurrency", type=int, default=0, help="free: broadcast_concurrency (0: the default)")
    parser.add_argument("--paid-rate", type=float, default=None,
                        help="paid: broadcast_paid_rate_per_second (default: the setting's, 900)")
    parser.add_argument("--paid-users", type=int, default=5000, help="paid broadcast recipients (~6 s at 900/s)")
    parser.add_argument("--cron-seconds", type=float, default=57,
                        help="budget of the cron tick (default cron_pump_seconds, 57; shorter for a quick check)")
    parser.add_argument("--only", nargs="+", choices=list(BENCHES), default=list(BENCHES), help="benchmarks to run")
    parser.add_argument("--bench", choices=["current", "own"], default="current",
                        help="measure both with this checkout's bench/ (default) or each revision's own")
    opts = parser.parse_args(argv)
    commits = [resolve(opts.rev_a), resolve(opts.rev_b)]
    # The same commit twice still gets two trees and two labels, so A/A runs show the noise.
    labels = [f"A {commits[0]}", f"B {commits[1]}"]
    samples: dict[str, dict[str, list[float]]] = {label: {} for label in labels}
    with tempfile.TemporaryDirectory(prefix="bench_compare_") as parent:
        trees = {label: extract(c, os.path.join(parent, label[0]), opts.bench == "own")
                 for label, c in zip(labels, commits, strict=True)}
        for trial in range(opts.trials):
            order = labels if trial % 2 == 0 else labels[::-1]
            for name in opts.only:
                for label in order:
                    print(f"trial {trial + 1}/{opts.trials}, {name}, {label}", flush=True)
                    for figure, value in BENCHES[name](trees[label], opts).items():
                        samples[label].setdefault(figure, []).append(value)
    rows = table(labels, samples)
    print_table(rows, ["figure", *labels, "ratio"],
                title=f"Engine figures, {opts.rev_a} ({commits[0]}) vs {opts.rev_b} ({commits[1]}), "
                      f"{opts.trials} trial(s), db={opts.db}; each cell the mean (then each trial); ratio = B / A")
    write_results("compare", opts, rows, samples=samples, commits=dict(zip(labels, commits, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
