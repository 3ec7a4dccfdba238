"""`flask doctor` on the test database and the simulated Bot API: what the account may read, the report, exit codes."""
from __future__ import annotations

import json
import uuid

import pytest
from sqlalchemy import NullPool, create_engine, text
from sqlalchemy.engine import make_url

from app.repository import db_limits
from app.services import telegram_factory
from app.services.settings import set_setting
from tests.conftest import PUBLIC_URL, app_config
from tests.dbutil import is_mysql

HOOK = PUBLIC_URL + "/telegram/webhook"


def doctor(runner, *args):
    """Run `flask doctor` and return the result."""
    return runner.invoke(args=["doctor", *args])


def checks(result) -> dict:
    """Return the --json answer's checks by name (the disks as a list)."""
    answer = json.loads(result.stdout)
    found = {}
    for check in answer["checks"]:
        found.setdefault(check["check"], []).append(check)
    return {name: (items if name == "disk" else items[0]) for name, items in found.items()}


def test_grants_name_the_per_hour_caps_and_an_unnamed_one_is_no_cap():
    lines = ["GRANT USAGE ON *.* TO `cp_bot`@`localhost` IDENTIFIED BY PASSWORD '*X' WITH MAX_QUERIES_PER_HOUR 50000 "
             "MAX_USER_CONNECTIONS 10", "GRANT ALL PRIVILEGES ON `cp_db`.* TO `cp_bot`@`localhost`"]
    assert db_limits.parse_grants(lines) == {"max_questions": 50000, "max_updates": 0,
                                             "max_connections_per_hour": 0, "account_user_connections": 10}


def test_the_account_reads_its_connection_cap_and_caps(app):
    limits = db_limits.account_limits()
    if is_mysql(app.config["SQLALCHEMY_DATABASE_URI"]):
        assert limits["user_connections"] > 0 and limits["max_connections"] > 0
        assert limits["source"] in ("mysql.user", "SHOW GRANTS") and limits["max_questions"] is not None
    else:
        assert limits["source"] == "sqlite" and limits["user_connections"] == 0 and limits["max_questions"] == 0


@pytest.fixture
def capped_url(database_url):
    """A database user with a shared host's caps and no right to read mysql.user; yield its URL."""
    if not is_mysql(database_url):
        pytest.skip("per-account caps are MariaDB's")
    name = f"upk_doc_{uuid.uuid4().hex[:8]}"
    url = make_url(database_url)
    root = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with root.connect() as conn:
        conn.execute(text(f"CREATE USER '{name}'@'%' IDENTIFIED BY 'pw-{name}' WITH MAX_QUERIES_PER_HOUR 50000 "
                          "MAX_CONNECTIONS_PER_HOUR 100 MAX_USER_CONNECTIONS 10"))
        conn.execute(text(f"GRANT ALL PRIVILEGES ON `{url.database}`.* TO '{name}'@'%'"))
    yield url.set(username=name, password=f"pw-{name}").render_as_string(hide_password=False)
    with root.connect() as conn:
        conn.execute(text(f"DROP USER '{name}'@'%'"))
    root.dispose()


def test_a_shared_host_account_reads_its_caps_from_its_grants(capped_url, simulator):
    from app import create_app
    from app.extensions import db

    capped = create_app(app_config(capped_url, simulator.base_url))
    with capped.app_context():
        limits = db_limits.account_limits()
        runner = capped.test_cli_runner()
        result = doctor(runner, "--json")
        db.session.remove()
        db.engine.dispose()
    assert limits["source"] == "SHOW GRANTS"  # mysql.user is not the account's to read
    assert (limits["user_connections"], limits["max_questions"], limits["max_connections_per_hour"]) == (10, 50000,
                                                                                                         100)
    assert result.exit_code == 1, result.output  # 6 processes need 16 connections; the hour needs 276
    found = checks(result)
    assert found["connections"]["state"] == "fail" and found["connections"]["fix_values"] == {"processes": 3}
    assert found["connections_hourly"]["state"] == "fail"
    assert found["queries"]["state"] == "fail" and found["queries"]["fix"] == "doc_fix_rate"


def test_a_fresh_install_with_its_webhook_fits_and_exits_0(runner, simulator, public_url):
    runner.invoke(args=["telegram", "set-webhook", HOOK])
    result = doctor(runner, "--json")
    assert result.exit_code == 0, result.output
    found = checks(result)
    assert found["webhook"]["state"] == "ok" and found["webhook"]["values"]["url"] == HOOK
    assert found["cron_budget"]["state"] == "ok" and found["cron_last_run"]["finding"] == "doc_cron_never"
    assert {d["state"] for d in found["disk"]} <= {"ok", "unknown"}
    answer = json.loads(result.stdout)
    assert answer["fits"] is True and answer["processes"] == 6
    assert answer["read"]["nproc"]["tried"] and answer["read"]["database"]["dialect"]


def test_a_webhook_pointing_elsewhere_and_a_cron_budget_past_its_minute_exit_1(runner, simulator, public_url):
    runner.invoke(args=["telegram", "set-webhook", "https://old.example.com/telegram/webhook"])
    set_setting("cron_pump_seconds", 58)
    result = doctor(runner, "--lang", "en")
    assert result.exit_code == 1, result.output
    assert "does not match PUBLIC_URL (https://bot.example.com)" in result.stdout
    assert "flask --app wsgi settings set cron_pump_seconds 57" in result.stdout
    assert "(exit code 1)" in result.stdout.splitlines()[-1]


def test_the_report_is_persian_by_default_and_a_missing_webhook_fails(runner, simulator):
    result = doctor(runner)
    assert result.exit_code == 1, result.output
    assert "وبهوک: تنظیم نشده است." in result.stdout
    assert "telegram set-webhook" in result.stdout and "کد خروج ۱" in result.stdout.splitlines()[-1]


def test_telegram_unreachable_is_could_not_read_not_a_failure(app, runner):
    app.config["TELEGRAM_API_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens there
    telegram_factory.reset_clients()
    result = doctor(runner, "--json", "--processes", "1")
    assert result.exit_code == 0, result.output
    assert checks(result)["webhook"]["state"] == "unknown"
