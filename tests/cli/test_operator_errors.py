"""Operator mistakes through the real `flask --app wsgi` process: one clear line, exit != 0, no traceback."""
from __future__ import annotations

import json
import subprocess

import pytest
from sqlalchemy.engine import make_url

from tests import forkserver
from tests.cli.proc import FLASK, ROOT, flask_env, run_flask
from tests.dbutil import base_test_url, create_fresh_mysql_database, drop_mysql_database, is_mysql

ON_MYSQL = is_mysql(base_test_url("/tmp"))
mysql_only = pytest.mark.skipif(not ON_MYSQL, reason="needs a MariaDB server (set TEST_DATABASE_URL)")
PASSWORD = "Wr0ng-Pa55word-ZZ"
# An unencoded @ and # in the password: SQLAlchemy would take "t#x9-QQ@127.0.0.1" as the host.
RAW_PASSWORD = "s3cr@t#x9-QQ"


def assert_one_clear_line(result, *expected: str, secrets: tuple[str, ...] = (PASSWORD, RAW_PASSWORD)) -> str:
    """Exit != 0; stderr is one line holding every expected fragment; no traceback or secret anywhere."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith("Error: "), line
    for fragment in expected:
        assert fragment in line, (fragment, line)
    for secret in secrets:
        assert secret not in output
    assert "t#x9-QQ" not in output  # not even the half of the password that became the "host"
    return line


def with_env(database_url, simulator, *args, **env) -> subprocess.CompletedProcess:
    """Run one command with some variables replaced (an empty value is an unset secret)."""
    return forkserver.run([FLASK, "--app", "wsgi", *args], cwd=ROOT, env={**flask_env(database_url, simulator), **env},
                          timeout=60)


@pytest.mark.parametrize("variable", ["TELEGRAM_BOT_TOKEN", "WEBHOOK_SECRET", "PUMP_TOKEN"])
def test_missing_secret_names_it_and_where_to_set_it(database_url, simulator, variable):
    result = with_env(database_url, simulator, "settings", "list", **{variable: ""})
    assert_one_clear_line(result, f"missing required environment variables: {variable}", "Setup Python App")


APP_COMMANDS = ("audit", "broadcast", "db", "settings", "stats", "telegram", "updates")
UNSET = {name: "" for name in ("TELEGRAM_BOT_TOKEN", "WEBHOOK_SECRET", "PUMP_TOKEN", "ADMIN_IDS", "DATABASE_URL")}


@pytest.mark.parametrize("env", [UNSET, {**UNSET, "ADMIN_IDS": "1;2"}], ids=["nothing set", "bad ADMIN_IDS"])
@pytest.mark.parametrize("args", [("--help",), ("broadcast", "--help"), ("db", "--help")])
def test_help_lists_the_commands_before_the_environment_is_set(database_url, simulator, env, args):
    result = with_env(database_url, simulator, *args, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr and result.stderr == ""
    commands = result.stdout.split("Commands:")[1]
    expected = {("--help",): APP_COMMANDS, ("broadcast", "--help"): ("create", "pump", "status", "unsend"),
                ("db", "--help"): ("upgrade", "current")}[args]
    for name in expected:
        assert f"\n  {name} " in commands, (name, result.stdout)


@pytest.mark.parametrize("command", [("settings", "list"), ("broadcast", "list"), ("db", "upgrade"),
                                     ("telegram", "webhook-info"), ("routes",)])
def test_a_command_run_before_the_environment_is_set_names_every_missing_secret(database_url, simulator, command):
    result = with_env(database_url, simulator, *command, **UNSET)
    assert_one_clear_line(result, "missing required environment variables: TELEGRAM_BOT_TOKEN, WEBHOOK_SECRET, "
                                  "PUMP_TOKEN", "Setup Python App")


@pytest.mark.parametrize("name, value, expected", [
    ("ADMIN_IDS", "1,abc", ("ADMIN_IDS", "'abc'", "ADMIN_IDS=123456789,987654321")),
    ("ADMIN_IDS", "1;2", ("ADMIN_IDS", "'1;2'", "comma-separated numeric Telegram user ids")),
    ("ADMIN_IDS", "1,,2", ("ADMIN_IDS", "empty item", "comma-separated numeric Telegram user ids")),
    ("MAIN_CHANNEL_ID", "@name", ("MAIN_CHANNEL_ID", "'@name'", "-100")),
    ("LOG_LEVEL", "LOUD", ("LOG_LEVEL", "'LOUD'", "DEBUG, INFO, WARNING")),
])
@pytest.mark.parametrize("command", [("settings", "list"), ("db", "upgrade")])
def test_bad_variable_is_one_line_with_the_fix(database_url, simulator, name, value, expected, command):
    result = with_env(database_url, simulator, *command, **{name: value})
    assert_one_clear_line(result, *expected)


@pytest.mark.parametrize("command", [("settings", "list"), ("db", "upgrade")])
def test_unencoded_at_and_hash_in_the_password_never_print_it(database_url, simulator, command):
    url = f"mysql+pymysql://upk:{RAW_PASSWORD}@127.0.0.1/upk?charset=utf8mb4"
    result = run_flask(url, simulator, *command)
    assert_one_clear_line(result, "DATABASE_URL", "percent-encode", "@ -> %40", "# -> %23")


def test_sqlite_without_tables_says_to_run_db_upgrade(simulator, tmp_path):
    result = run_flask(f"sqlite:///{tmp_path}/empty.sqlite3", simulator, "settings", "list")
    assert_one_clear_line(result, "missing tables", "flask --app wsgi db upgrade")


@pytest.mark.parametrize("command", [("settings", "list"), ("db", "upgrade")])
def test_sqlite_file_that_cannot_be_opened_says_so(simulator, command):
    result = run_flask("sqlite:////nonexistent-dir/sub/update_pack.sqlite3", simulator, *command)
    assert_one_clear_line(result, "cannot open the SQLite file", "folder")


def server_url(database: str | None = None, password: str | None = None, port: int | None = None) -> str:
    """Return this run's MariaDB URL with some parts replaced."""
    url = make_url(base_test_url("/tmp"))
    if database is not None:
        url = url.set(database=database)
    if password is not None:
        url = url.set(password=password)
    if port is not None:
        url = url.set(port=port)
    return url.render_as_string(hide_password=False)


@mysql_only
@pytest.mark.parametrize("command", [("settings", "list"), ("db", "upgrade"), ("broadcast", "list")])
@pytest.mark.parametrize("case, expected", [
    ("wrong_password", ("access denied", "user name and password in DATABASE_URL")),
    ("unknown_database", ("unknown database", "upk_no_such_db", "create the database")),
    ("unreachable", ("unreachable", "host and port in DATABASE_URL")),
])
def test_mariadb_failure_kinds_are_named_with_the_fix(simulator, command, case, expected):
    url = {
        "wrong_password": lambda: server_url(password=PASSWORD),
        "unknown_database": lambda: server_url(database="upk_no_such_db"),
        "unreachable": lambda: server_url(port=9),
    }[case]()
    assert_one_clear_line(run_flask(url, simulator, *command), *expected)


@mysql_only
def test_mariadb_without_tables_says_to_run_db_upgrade(database_url, simulator):
    url = create_fresh_mysql_database(database_url.rsplit("/", 1)[0] + "/empty?charset=utf8mb4")
    try:
        result = run_flask(url, simulator, "settings", "list")
    finally:
        drop_mysql_database(url)
    assert_one_clear_line(result, "missing tables", "flask --app wsgi db upgrade")


def test_webhook_info_works_without_a_database(simulator):
    dead = server_url(port=9) if ON_MYSQL else "sqlite:////nonexistent-dir/sub/update_pack.sqlite3"
    simulator.reset()
    result = run_flask(dead, simulator, "telegram", "webhook-info")
    assert result.returncode == 0, result.stderr
    assert "url" in json.loads(result.stdout)
    assert "Traceback" not in result.stderr
