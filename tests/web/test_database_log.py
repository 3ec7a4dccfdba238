"""When the database fails, the webhook answers 503 and the web log says which kind of failure and the fix."""
from __future__ import annotations

import json
import logging
import threading

import pytest
import requests
from sqlalchemy.engine import make_url
from werkzeug.serving import make_server

from app import create_app
from app.extensions import db
from app.simulator.updates import message_update
from tests import conftest
from tests.dbutil import base_test_url, is_mysql

ON_MYSQL = is_mysql(base_test_url("/tmp"))
mysql_only = pytest.mark.skipif(not ON_MYSQL, reason="needs a MariaDB server (set TEST_DATABASE_URL)")
PASSWORD = "Wr0ng-Pa55word-ZZ"


def post_start(url: str, simulator) -> requests.Response:
    """Serve an app on url's database over loopback HTTP and post one /start update to its webhook."""
    app = create_app(conftest.app_config(url, simulator.base_url))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        return requests.post(f"http://127.0.0.1:{server.server_port}/telegram/webhook", timeout=60,
                             data=json.dumps(message_update(7001, "/start")),
                             headers={"Content-Type": "application/json",
                                      "X-Telegram-Bot-Api-Secret-Token": conftest.WEBHOOK_SECRET})
    finally:
        server.shutdown()
        server.server_close()
        with app.app_context():
            db.engine.dispose()


def assert_logged(caplog, response, *expected: str) -> None:
    """503 to Telegram, and one error line in the web log naming the kind and the fix, without the password."""
    assert response.status_code == 503
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR and r.name == "app.web.errors"]
    assert len(lines) == 1, lines
    for fragment in expected:
        assert fragment in lines[0], (fragment, lines[0])
    assert PASSWORD not in caplog.text


def server_url(**parts) -> str:
    """Return this run's MariaDB URL with some parts replaced."""
    return make_url(base_test_url("/tmp")).set(**parts).render_as_string(hide_password=False)


@mysql_only
@pytest.mark.parametrize("case, expected", [
    ("wrong_password", ("access denied", "user name and password in DATABASE_URL")),
    ("unknown_database", ("unknown database", "create the database")),
    ("unreachable", ("unreachable", "host and port in DATABASE_URL")),
])
def test_mariadb_failure_kind_is_in_the_web_log(simulator, caplog, case, expected):
    url = {
        "wrong_password": lambda: server_url(password=PASSWORD),
        "unknown_database": lambda: server_url(database="upk_no_such_db"),
        "unreachable": lambda: server_url(port=9),
    }[case]()
    caplog.set_level(logging.INFO)
    assert_logged(caplog, post_start(url, simulator), *expected)


def test_missing_tables_are_in_the_web_log_with_db_upgrade(simulator, caplog, empty_database):
    caplog.set_level(logging.INFO)
    assert_logged(caplog, post_start(empty_database, simulator), "missing tables", "flask --app wsgi db upgrade")


def test_an_sqlite_file_that_cannot_be_opened_is_named(simulator, caplog):
    caplog.set_level(logging.INFO)
    response = post_start("sqlite:////nonexistent-dir/sub/db.sqlite3", simulator)
    assert_logged(caplog, response, "cannot open the SQLite file")
