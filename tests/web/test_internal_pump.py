"""GET|POST /internal/pump under time: the budget holds with a large job; two calls at once share one job.

Auth, input checks, the JSON shape and housekeeping are in test_internal_pump_api.py (run in parallel).
"""
import threading
import time

from app.extensions import db
from tests.broadcast.helpers import BASE_ID, assert_consistent, create_text_job, create_users, reload
from tests.web.test_internal_pump_api import AUTH, URL


def test_budget_is_respected_with_a_large_job(client, simulator):
    simulator.configure(latency_ms=20)
    create_users(2000)
    job = create_text_job()
    started = time.monotonic()
    response = client.get(URL, query_string={"seconds": "2"}, headers=AUTH)
    elapsed = time.monotonic() - started
    assert response.status_code == 200
    assert elapsed < 2 + 1.5, elapsed
    (result,) = response.get_json()["jobs"]
    # The pacer's "no slot before the deadline" and a spent budget both end a pump on time.
    assert result["stop"] in ("budget", "rate_limited") and result["job"]["status"] == "running"
    assert 0 < result["job"]["sent"] < 2000 and result["job"]["pending"] == 2000 - result["processed"]
    assert_consistent(job.id, simulator)


def test_concurrent_calls_share_one_job_without_duplicates(app, simulator):
    simulator.configure(latency_ms=30)
    create_users(100)
    job = create_text_job()
    db.session.remove()
    barrier = threading.Barrier(2)
    answers, errors = [], []

    def call():
        try:
            barrier.wait(timeout=10)
            # Each test client request pushes its own app context: separate sessions and connections.
            response = app.test_client().get(URL, query_string={"seconds": "3"}, headers=AUTH)
            answers.append(response.get_json())
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors and len(answers) == 2
    stops = sorted(a["jobs"][0]["stop"] for a in answers)
    assert "lease_miss" in stops, stops  # the second caller found the lease taken and did nothing
    while reload(job.id).status == "running":
        assert app.test_client().get(URL, query_string={"seconds": "5"}, headers=AUTH).status_code == 200
    chats = [d["chat_id"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID]
    assert sorted(chats) == list(range(BASE_ID, BASE_ID + 100))
    assert assert_consistent(job.id, simulator) == {"sent": 100}

