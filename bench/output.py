"""Benchmark output: aligned tables on stdout, JSON with the machine and code version in bench/results/."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone

from bench.common import MARIADB_SERVER, RESULTS, ROOT


def print_table(rows: list[dict], columns: list[str], title: str = "") -> None:
    """Print rows as an aligned text table (also valid Markdown)."""
    if title:
        print(f"\n{title}")
    cells = [[_fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) if cells else len(c) for i, c in enumerate(columns)]
    print("| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) + " |")
    sys.stdout.flush()


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 1 else f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def machine() -> dict:
    """Describe the machine the figures came from."""
    cpu = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    mem_gib = ""
    with contextlib.suppress(OSError), open("/proc/meminfo") as f:
        kb = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
        mem_gib = round(kb / 1024 / 1024, 1)
    return {"nproc": os.cpu_count(), "cpu": cpu, "ram_gib": mem_gib, "python": platform.python_version(),
            "loadavg": os.getloadavg(), "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def mariadb_version() -> str:
    from sqlalchemy import create_engine, text

    with contextlib.suppress(Exception):
        engine = create_engine(MARIADB_SERVER)
        with engine.connect() as conn:
            version = conn.execute(text("SELECT VERSION()")).scalar()
        engine.dispose()
        return version
    return "unavailable"


def code_version() -> dict:
    """Name the engine code measured: HEAD, whether app/ differs from it, and a hash of the engine files."""
    import hashlib

    def git(*cmd: str) -> str:
        try:
            return subprocess.run(["git", *cmd], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    digest = hashlib.sha1()  # the engine as docs/PERFORMANCE.md names it, subpackages included
    for folder in ("app/services/broadcast", "app/services/budget", "app/telegram", "app/repository"):
        for base, dirs, files in sorted(os.walk(os.path.join(ROOT, folder))):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    with open(os.path.join(base, name), "rb") as f:
                        digest.update(os.path.relpath(os.path.join(base, name), ROOT).encode() + f.read())
    return {"head": git("rev-parse", "--short", "HEAD"), "app_dirty": bool(git("status", "--porcelain", "app")),
            "engine_sha1": digest.hexdigest()[:12]}


def write_results(name: str, args: argparse.Namespace, rows: list[dict], **extra) -> str:
    """Write bench/results/<name>-<timestamp>.json and <name>-latest.json; return the path."""
    os.makedirs(RESULTS, exist_ok=True)
    module = "bench." + os.path.splitext(os.path.basename(sys.argv[0]))[0]
    payload = {"benchmark": name, "command": " ".join([".venv/bin/python -m", module, *sys.argv[1:]]),
               "code": code_version(), "mariadb": mariadb_version(),
               "args": vars(args), "machine": machine(), "rows": rows, **extra}
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = os.path.join(RESULTS, f"{name}-{stamp}.json")
    for target in (path, os.path.join(RESULTS, f"{name}-latest.json")):
        with open(target, "w") as f:
            json.dump(payload, f, indent=2, ensure_ascii=False, default=str)
    print(f"\nresults: {os.path.relpath(path, ROOT)}  (load average at the end: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())})")
    return path
