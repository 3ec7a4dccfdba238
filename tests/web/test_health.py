"""GET /healthz: 200 only when the database answers at the head migration; 503 says what to fix."""
import os
import threading

import pytest
import requests
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import text
from sqlalchemy.engine import make_url
from werkzeug.serving import make_server

from app import create_app
from app.db_errors import FIXES
from app.extensions import db
from tests import conftest
from tests.dbutil import base_test_url, is_mysql

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEAD = ScriptDirectory(os.path.join(ROOT, "migrations")).get_current_head()
UPGRADE_HINT = "run `flask --app wsgi db upgrade`"


@pytest.fixture
def fresh_app(empty_database, simulator):
    """Yield an app on the fresh database (nothing migrated yet)."""
    app = create_app(conftest.app_config(empty_database, simulator.base_url))
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


def get_healthz(app) -> requests.Response:
    """GET /healthz over real HTTP from the app served on a loopback port."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        return requests.get(f"http://127.0.0.1:{server.server_port}/healthz", timeout=30)
    finally:
        server.shutdown()
        server.server_close()


def migrate(app, how, *args) -> None:
    """Run a real Alembic command against the app's database."""
    with app.app_context():
        how(*args)
        db.engine.dispose()


def test_healthy_at_the_head_migration(app):
    response = get_healthz(app)
    assert response.status_code == 200
    assert response.json() == {"ok": True, "database": "ok", "schema": HEAD,
                               "cron": {"last_run": None, "minutes_ago": None, "late": False, "waiting_jobs": []}}


def test_an_empty_database_is_503_saying_to_run_db_upgrade(fresh_app):
    response = get_healthz(fresh_app)
    assert response.status_code == 503
    assert response.json() == {"ok": False, "database": "no schema", "schema": None, "head": HEAD,
                               "fix": UPGRADE_HINT}


def test_the_same_database_is_200_once_migrated_and_503_one_revision_behind(fresh_app):
    migrate(fresh_app, upgrade)
    assert get_healthz(fresh_app).status_code == 200
    migrate(fresh_app, downgrade, None, "-1")
    response = get_healthz(fresh_app)
    assert response.status_code == 503
    body = response.json()
    assert (body["database"], body["head"], body["fix"]) == ("schema out of date", HEAD, UPGRADE_HINT)
    assert body["schema"] not in (None, HEAD)
    migrate(fresh_app, upgrade)
    assert get_healthz(fresh_app).status_code == 200


def test_a_database_newer_than_the_code_is_503(fresh_app):
    migrate(fresh_app, upgrade)
    with fresh_app.app_context():
        db.session.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
        db.session.commit()
    response = get_healthz(fresh_app)
    assert response.status_code == 503
    assert response.json()["database"] == "schema newer than the code"


def test_database_down_is_503_and_says_which_kind(simulator):
    dead = create_app(conftest.app_config("sqlite:////nonexistent-dir/x/db.sqlite3", simulator.base_url))
    response = get_healthz(dead)
    assert response.status_code == 503
    assert response.json() == {"ok": False, "database": "unavailable", "reason": "cannot open the SQLite file",
                               "fix": FIXES["cannot open the SQLite file"]}
    assert "folder in DATABASE_URL exists" in response.json()["fix"]
    assert conftest.TOKEN not in response.text


PASSWORD = "Hz-n0t-in-the-answer"


@pytest.mark.skipif(not is_mysql(base_test_url("/tmp")), reason="needs a MariaDB server (set TEST_DATABASE_URL)")
@pytest.mark.parametrize("part, reason, fix", [
    ({"database": "upk_no_such_db"}, "unknown database", "create the database (cPanel > MySQL Databases)"),
    ({"username": "upk_nobody", "password": PASSWORD}, "access denied", "user name and password in DATABASE_URL"),
])
def test_a_mariadb_the_app_cannot_use_is_503_saying_what_to_fix_without_the_password(simulator, part, reason, fix):
    url = make_url(base_test_url("/tmp")).set(**part).render_as_string(hide_password=False)
    dead = create_app(conftest.app_config(url, simulator.base_url))
    response = get_healthz(dead)
    assert response.status_code == 503
    body = response.json()
    assert (body["database"], body["reason"]) == ("unavailable", reason)
    assert fix in body["fix"] and "DATABASE_URL" in body["fix"]
    assert PASSWORD not in response.text and conftest.TOKEN not in response.text
    with dead.app_context():
        db.engine.dispose()
