"""Reliability fixtures: a figures recorder, a bot without per-chat pacing, and jobs in every state."""
from __future__ import annotations

import json
import os
import platform
import time

import pytest

from app.services import telegram_factory
from tests.dbutil import is_mysql


class Figures(dict):
    """Scenario name -> figures; a short repr keeps Hypothesis' falsifying examples readable."""

    def __repr__(self) -> str:
        return "<reliability figures>"


@pytest.fixture(scope="session")
def figures(database_url, tmp_path_factory):
    """Collect each scenario's figures; write them as JSON at the end of the run and print where.

    The file goes to $UPK_RELIABILITY_FIGURES if set, else to the run's tmp dir.
    """
    collected = Figures()
    started = time.time()
    yield collected
    if not collected:
        return
    backend = "mariadb" if is_mysql(database_url) else "sqlite"
    report = {"database": backend, "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
              "python": platform.python_version(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
              "wall_seconds": round(time.time() - started, 1), "scenarios": collected}
    default = tmp_path_factory.getbasetemp() / f"reliability-{backend}.json"
    path = os.environ.get("UPK_RELIABILITY_FIGURES") or str(default)
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2, ensure_ascii=False)
    print(f"\nreliability figures ({backend}) written to {path}")


@pytest.fixture
def fast_bot(simulator, monkeypatch):
    """Turn off per-chat pacing (1 msg/s per private chat) so fuzzed conversations take milliseconds."""
    simulator.configure(per_chat_limits=False)
    telegram_factory.reset_clients()
    monkeypatch.setattr(telegram_factory, "SharedChatPacer", lambda *args, **kwargs: None)
    yield simulator
    telegram_factory.reset_clients()


@pytest.fixture
def job_ids(app, fast_bot):
    """Recipients and four jobs, one each running, queued, paused and cancelled."""
    from tests.reliability.fuzzing import jobs_in_every_state

    return jobs_in_every_state()
