"""Racing pumpers never send twice, judged by the simulator's 429s too (the load-sensitive part).

Crashes judged by counts (a stalled pump fenced off, pumps killed mid-batch) are in test_crashes.py (run in parallel).
"""
import threading
import time

from app import create_app
from app.extensions import db
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import (
    assert_consistent,
    create_text_job,
    create_users,
    engine_settings,
    reload,
)
from tests.broadcast.test_crashes import delivered
from tests.conftest import app_config


def test_two_concurrent_pumpers_never_send_twice(app, simulator, database_url):
    create_users(120)
    # 20/s leaves a third of Telegram's window free, so scheduling jitter on a
    # loaded machine cannot provoke a 429: any 429 here means two senders.
    paced = engine_settings(broadcast_rate_per_second=20)
    job_id = create_text_job(settings=paced).id
    stops: list[str] = []
    start = threading.Barrier(2, timeout=60)
    # Built before the threads: CPython 3.11 can fail building two apps in two threads at once
    # (werkzeug's route compiling), and the other pumper would wait at the barrier.
    apps = [create_app(app_config(database_url, simulator.base_url)) for _ in range(2)]

    def pumper(other):
        with other.app_context():
            start.wait()
            for _ in range(30):
                result = pump(job_id, 2, settings=paced)
                stops.append(result.stop)
                if result.stop == "done" or reload(job_id).status == "completed":
                    break
                if result.stop == "lease_miss":
                    time.sleep(0.2)
            db.engine.dispose()

    threads = [threading.Thread(target=pumper, args=(other,)) for other in apps]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert reload(job_id).status == "completed"
    assert "lease_miss" in stops, "the second pumper must have found the lease taken"
    assert stops.count("done") == 1
    chats = delivered(simulator)
    assert len(chats) == 120 == len(set(chats))
    assert assert_consistent(job_id, simulator) == {"sent": 120}
    assert simulator.stats()["429_total"] == 0
