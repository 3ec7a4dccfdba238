"""A pump's threads: its send threads and its progress outbox's worker, no pool beside them (NPROC counts threads)."""
from __future__ import annotations

import threading

from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import create_text_job, create_users, engine_settings, reload


def test_a_pump_starts_only_its_send_threads_and_its_outbox_worker(app, simulator, monkeypatch):
    create_users(20)
    settings = engine_settings(broadcast_concurrency=3)
    job = create_text_job(settings=settings)
    started: list[str] = []
    real_start = threading.Thread.start

    def start(thread):
        started.append(thread.name)
        return real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)
    assert pump(job.id, 20, settings=settings).stop == "done"
    monkeypatch.undo()
    assert reload(job.id).sent_count == 20
    mine = [name for name in started if not name.startswith("Thread-")]  # the simulator's own request threads
    senders = [name for name in mine if name.startswith(f"pump{job.id}")]
    assert len(senders) == 3, mine
    assert sorted(set(mine) - set(senders)) == ["telegram-outbox"], mine  # connections warmed on the send threads
