"""POST /telegram/webhook: authentication, body checks, and the failure policy over HTTP."""
import io
import json

import pytest
from werkzeug.test import EnvironBuilder, run_wsgi_app

from app import create_app
from app.simulator.updates import message_update, my_chat_member_update
from tests import conftest
from tests.conftest import PUMP_TOKEN, TOKEN, WEBHOOK_SECRET
from tests.factories import get_user, post_update, processed_ids

SECRETS = (TOKEN, WEBHOOK_SECRET, PUMP_TOKEN)


def assert_no_secrets(response):
    body = response.get_data(as_text=True)
    for secret in SECRETS:
        assert secret not in body


def test_missing_secret_is_401(client):
    response = post_update(client, message_update(7001, "/start"), secret=None)
    assert response.status_code == 401
    assert_no_secrets(response)
    assert processed_ids() == set()


@pytest.mark.parametrize("secret", ["wrong", WEBHOOK_SECRET + "x", WEBHOOK_SECRET[:-1], "", PUMP_TOKEN])
def test_wrong_secret_is_403(client, secret):
    response = post_update(client, message_update(7001, "/start"), secret=secret)
    assert response.status_code == 403
    assert_no_secrets(response)
    assert get_user(7001) is None


@pytest.mark.parametrize("body", [b"{not json", b"\xff\xfe", b"", b"[" * 100_000 + b"]" * 100_000, b"1" * 5000])
def test_malformed_json_is_400(client, body):
    response = post_update(client, body)
    assert response.status_code == 400
    assert response.get_json()["ok"] is False
    assert_no_secrets(response)


@pytest.mark.parametrize("body", ["[]", "[1, 2]", '"update"', "42", "null", "true"])
def test_non_object_is_400(client, body):
    assert post_update(client, body).status_code == 400


@pytest.mark.parametrize("update_id", [None, "5", -1, 1.5, True, 2**62 + 1, 2**80])
def test_bad_update_id_is_400(client, update_id):
    update = message_update(7001, "/start")
    update["update_id"] = update_id
    assert post_update(client, update).status_code == 400
    assert processed_ids() == set()


def test_largest_update_id_is_accepted(client):
    response = post_update(client, my_chat_member_update(7002, "member", "kicked", update_id=2**62))
    assert response.get_json() == {"ok": True, "outcome": "handled"}
    assert processed_ids() == {2**62}
    assert get_user(7002).is_blocked


def test_oversize_body_is_413(app, client):
    limit = app.config["WEBHOOK_MAX_BODY_BYTES"]
    update = message_update(7003, "/start")
    update["message"]["text"] = "/start " + "x" * limit
    response = post_update(client, update)
    assert response.status_code == 413
    assert get_user(7003) is None


def test_oversize_body_without_content_length_is_413(app, client):
    """A chunked body (no Content-Length) is cut off at the limit, not read whole."""
    app.config["WEBHOOK_MAX_BODY_BYTES"] = 1000
    body = json.dumps({"update_id": 1, "pad": "x" * 5000}).encode()
    environ = EnvironBuilder("/telegram/webhook", method="POST", headers={
        "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET, "Content-Type": "application/json"}).get_environ()
    environ.pop("CONTENT_LENGTH", None)
    environ.update({"wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True,
                    "HTTP_TRANSFER_ENCODING": "chunked"})
    # The Flask test client would re-derive Content-Length; call the WSGI app as a server would.
    _body, status, _headers = run_wsgi_app(app, environ)
    assert status.startswith("413")
    assert processed_ids() == set()


def test_get_is_not_allowed(client):
    assert client.get("/telegram/webhook").status_code == 405


@pytest.mark.parametrize("dead_url", ["sqlite:////nonexistent-dir/nothing/db.sqlite3",
                                      "mysql+pymysql://root@127.0.0.1:9/nothing?charset=utf8mb4"])
def test_database_down_is_503_and_records_nothing(app, simulator, dead_url):
    """Telegram must redeliver: 503, and the real database has no trace of the update."""
    dead = create_app(conftest.app_config(dead_url, simulator.base_url))
    update = message_update(7004, "/start", update_id=990_001)
    with dead.app_context():
        response = post_update(dead.test_client(), update)
    assert response.status_code == 503
    assert response.get_json() == {"ok": False, "error": "database unavailable, retry later"}
    assert_no_secrets(response)
    assert processed_ids() == set()
    assert get_user(7004) is None
    assert simulator.deliveries() == []
