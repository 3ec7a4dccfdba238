"""GET|POST /internal/pump: auth, input checks, JSON shape, housekeeping."""
from datetime import timedelta

import pytest
from sqlalchemy import insert, select

from app.clock import utcnow
from app.extensions import db
from app.models import AlbumPart, ProcessedUpdate
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, reload
from tests.conftest import PUMP_TOKEN

URL = "/internal/pump"
AUTH = {"Authorization": f"Bearer {PUMP_TOKEN}"}


@pytest.mark.parametrize("kwargs", [
    {},
    {"headers": {"Authorization": "Bearer wrong-token"}},
    {"headers": {"Authorization": f"Basic {PUMP_TOKEN}"}},
    {"headers": {"Authorization": "Bearer "}},
])
def test_missing_or_wrong_token_is_401_json(client, kwargs):
    for method in (client.get, client.post):
        response = method(URL, **kwargs)
        assert response.status_code == 401
        assert response.get_json() == {"ok": False, "error": "unauthorized"}
        assert response.headers["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("token", [PUMP_TOKEN, "wrong", ""])
@pytest.mark.parametrize("how", ["query_get", "query_post", "form_post", "query_with_good_header"])
def test_a_token_outside_the_header_is_refused_and_the_answer_says_to_use_the_header(client, simulator, how, token):
    # A token in the URL lands in Apache/cPanel access logs: refused even when it is right.
    create_users(3)
    job = create_text_job()
    response = {
        "query_get": lambda: client.get(URL, query_string={"token": token}),
        "query_post": lambda: client.post(URL, query_string={"token": token}),
        "form_post": lambda: client.post(URL, data={"token": token}),
        "query_with_good_header": lambda: client.get(URL, query_string={"token": token}, headers=AUTH),
    }[how]()
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == "Bearer"
    error = response.get_json()["error"]
    assert "Authorization: Bearer <PUMP_TOKEN>" in error and "access log" in error
    assert PUMP_TOKEN not in response.get_data(as_text=True)
    assert simulator.deliveries() == [] and reload(job.id).sent_count == 0


def test_bad_seconds_are_checked_after_auth(client):
    assert client.get(URL, query_string={"seconds": "abc"}).status_code == 401


@pytest.mark.parametrize("seconds", ["0", "-1", "abc", "1.5", "58", "", " 2", "²", "99999999999"])
def test_bad_seconds_are_400_with_a_clear_message(client, seconds):
    response = client.get(URL, query_string={"seconds": seconds}, headers=AUTH)
    assert response.status_code == 400
    assert response.get_json() == {"ok": False,
                                   "error": "seconds must be a whole number from 1 to 57 (cron_pump_seconds)"}


def test_seconds_upper_bound_follows_the_setting(client, runner):
    runner.invoke(args=["settings", "set", "cron_pump_seconds", "5"])
    assert client.get(URL, query_string={"seconds": "6"}, headers=AUTH).status_code == 400
    assert client.get(URL, query_string={"seconds": "5"}, headers=AUTH).status_code == 200


@pytest.mark.parametrize("how", ["header_get", "header_post", "header_form_post"])
def test_the_header_pumps_and_answers_the_json_shape(client, simulator, how):
    create_users(3)
    job = create_text_job()
    call = {
        "header_get": lambda: client.get(URL, headers=AUTH),
        "header_post": lambda: client.post(URL, headers=AUTH),
        "header_form_post": lambda: client.post(URL, data={"seconds": "5"}, headers=AUTH),
    }[how]
    response = call()
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json()
    assert set(body) == {"ok", "jobs", "seconds", "purged_updates"} and body["ok"] is True
    assert isinstance(body["seconds"], float) and body["seconds"] < 10
    (result,) = body["jobs"]
    assert {"job_id", "acquired", "stop", "processed", "seconds", "job"} <= set(result)
    assert (result["job_id"], result["stop"], result["processed"]) == (job.id, "done", 3)
    assert {"status": "completed", "sent": 3, "pending": 0}.items() <= result["job"].items()
    assert_consistent(job.id, simulator)


def test_no_jobs_answers_an_empty_list(client):
    body = client.get(URL, headers=AUTH).get_json()
    assert body["ok"] is True and body["jobs"] == []


def test_old_processed_updates_are_purged_once_per_call(client, runner):
    runner.invoke(args=["settings", "set", "processed_updates_keep_days", "3"])
    now = utcnow()
    db.session.execute(insert(ProcessedUpdate), [
        {"update_id": 1, "processed_at": now - timedelta(days=10)},
        {"update_id": 2, "processed_at": now - timedelta(days=4)},
        {"update_id": 3, "processed_at": now - timedelta(hours=1)},
    ])
    db.session.commit()
    assert client.get(URL, headers=AUTH).get_json()["purged_updates"] == 2
    assert client.get(URL, headers=AUTH).get_json()["purged_updates"] == 0
    assert list(db.session.execute(select(ProcessedUpdate.update_id)).scalars()) == [3]
    db.session.commit()


def test_album_rows_past_their_week_are_dropped_by_the_cron_call(client):
    now = utcnow()
    db.session.execute(insert(AlbumPart), [
        {"admin_id": 8001, "media_group_id": "old", "message_id": 0, "chat_id": 8001,
         "created_at": now - timedelta(days=8)},
        {"admin_id": 1001, "media_group_id": "old-admin", "message_id": 5, "chat_id": 1001,
         "created_at": now - timedelta(days=8)},
        {"admin_id": 8001, "media_group_id": "new", "message_id": 0, "chat_id": 8001,
         "created_at": now - timedelta(days=6)},
    ])
    db.session.commit()
    assert client.get(URL, headers=AUTH).status_code == 200
    assert list(db.session.execute(select(AlbumPart.media_group_id)).scalars()) == ["new"]
    db.session.commit()
