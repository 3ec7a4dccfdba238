"""create_app: configuration from the environment and the secrets check."""
import pytest

from app import create_app
from app.config import ConfigError, engine_options, load_config, parse_admin_ids

SECRETS = {"TELEGRAM_BOT_TOKEN": "1:x", "WEBHOOK_SECRET": "w" * 8, "PUMP_TOKEN": "p" * 8}


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    """Remove the app's variables and point the database at a temp file."""
    for name in ("TELEGRAM_BOT_TOKEN", "WEBHOOK_SECRET", "PUMP_TOKEN", "ADMIN_IDS", "MAIN_CHANNEL_ID", "FLASK_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/x.sqlite3")
    return monkeypatch


@pytest.mark.parametrize("missing", sorted(SECRETS))
def test_production_refuses_to_start_without_a_secret_and_names_it(clean_env, missing):
    for name, value in SECRETS.items():
        if name != missing:
            clean_env.setenv(name, value)
    with pytest.raises(ConfigError) as err:
        create_app()
    assert str(err.value).startswith(f"missing required environment variables: {missing} (set them in ")


def test_all_missing_secrets_are_named_in_one_line(clean_env):
    with pytest.raises(ConfigError, match="TELEGRAM_BOT_TOKEN, WEBHOOK_SECRET, PUMP_TOKEN"):
        create_app()


def test_testing_starts_without_secrets_and_touches_nothing_at_import(clean_env):
    app = create_app({"TESTING": True})
    assert app.config["TELEGRAM_API_BASE_URL"] == "https://api.telegram.org"


def test_environment_is_read(clean_env):
    for name, value in SECRETS.items():
        clean_env.setenv(name, value)
    clean_env.setenv("ADMIN_IDS", " 12, 5000000000 ")
    clean_env.setenv("MAIN_CHANNEL_ID", "-1001234567890")
    clean_env.setenv("TELEGRAM_API_BASE_URL", "http://127.0.0.1:9/")
    app = create_app()
    assert app.config["ADMIN_IDS"] == {12, 5_000_000_000}
    assert app.config["MAIN_CHANNEL_ID"] == -1001234567890
    assert app.config["TELEGRAM_API_BASE_URL"] == "http://127.0.0.1:9"


@pytest.mark.parametrize("raw", ["12,abc", "1.5", "1;2", "1,,2", "12,", ",12", "-5", "@admin", "۱۲"])
def test_bad_admin_ids_are_a_clear_error(raw):
    with pytest.raises(ConfigError) as err:
        parse_admin_ids(raw)
    assert str(err.value).startswith("ADMIN_IDS: ")
    assert "expected comma-separated numeric Telegram user ids" in str(err.value)


@pytest.mark.parametrize("raw, ids", [("", set()), ("  ", set()), ("7", {7}), (" 1 , 2,3 ", {1, 2, 3})])
def test_admin_ids_accept_numbers_separated_by_commas_and_spaces(raw, ids):
    assert parse_admin_ids(raw) == ids


def test_bad_channel_id_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="MAIN_CHANNEL_ID"):
        load_config(str(tmp_path), {"MAIN_CHANNEL_ID": "@channel"})


@pytest.mark.parametrize("raw", ["LOUD", "verbose", "5"])
def test_unknown_log_level_is_a_clear_error(tmp_path, raw):
    with pytest.raises(ConfigError, match=f"LOG_LEVEL: '{raw}' is not a log level; use one of DEBUG, INFO"):
        load_config(str(tmp_path), {"LOG_LEVEL": raw})


def test_log_level_is_case_insensitive(tmp_path):
    assert load_config(str(tmp_path), {"LOG_LEVEL": " debug "})["LOG_LEVEL"] == "DEBUG"


@pytest.mark.parametrize("password", ["s3cr@t#x9", "pZ@ssQ", "aQ@bW/cE@dR", "abZ#cQ@dW"])
def test_unencoded_at_in_the_password_is_refused_without_showing_it(tmp_path, password):
    with pytest.raises(ConfigError) as err:
        load_config(str(tmp_path), {"DATABASE_URL": f"mysql+pymysql://upk:{password}@localhost/upk"})
    assert "percent-encode" in str(err.value) and "@ -> %40" in str(err.value)
    assert all(part not in str(err.value) for part in password.split("@"))


@pytest.mark.parametrize("password", ["s3cr%40t%23x9", "plain", "p#ss", "a:b/c?d"])
def test_encoded_or_harmless_passwords_are_accepted(tmp_path, password):
    url = f"mysql+pymysql://upk:{password}@localhost:3306/upk?charset=utf8mb4"
    assert load_config(str(tmp_path), {"DATABASE_URL": url})["SQLALCHEMY_DATABASE_URI"] == url


def test_the_database_password_is_redacted_from_logs(clean_env):
    from app.logging_setup import redact

    for name, value in SECRETS.items():
        clean_env.setenv(name, value)
    clean_env.setenv("DATABASE_URL", "mysql+pymysql://upk:Db-Pa55-word%40x@localhost/upk")
    create_app()
    assert redact("connecting with Db-Pa55-word@x") == "connecting with [REDACTED]"


def test_default_database_is_sqlite_in_the_instance_folder(tmp_path):
    assert load_config(str(tmp_path), {})["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{tmp_path}/update_pack.sqlite3"


def test_mysql_engine_options_suit_shared_hosting():
    opts = engine_options("mysql+pymysql://u:p@localhost/db?charset=utf8mb4")
    assert opts["pool_pre_ping"] is True
    assert opts["pool_recycle"] < 300, "below shared hosts' short wait_timeout"
    # One connection per engine: a host's max_user_connections counts every process's.
    assert (opts["pool_size"], opts["max_overflow"]) == (1, 0)
    assert opts["connect_args"]["charset"] == "utf8mb4"
    assert load_config("/x", {"DATABASE_URL": "mysql://u@h/d"})["SQLALCHEMY_DATABASE_URI"].startswith("mysql+pymysql://")


def test_passenger_entry_point_exposes_application(clean_env):
    for name, value in SECRETS.items():
        clean_env.setenv(name, value)
    import importlib

    import passenger_wsgi

    importlib.reload(passenger_wsgi)
    assert callable(passenger_wsgi.application)


@pytest.mark.parametrize("raw, value", [(None, True), ("", True), ("on", True), ("YES", True), ("off", False),
                                        ("0", False), (" false ", False)])
def test_results_picture_is_an_on_off_switch_on_by_default(tmp_path, raw, value):
    env = {} if raw is None else {"RESULTS_PICTURE": raw}
    assert load_config(str(tmp_path), env)["RESULTS_PICTURE"] is value


def test_a_results_picture_value_that_is_not_on_or_off_is_refused_naming_it(tmp_path):
    with pytest.raises(ConfigError, match="RESULTS_PICTURE: 'sometimes' is not on or off"):
        load_config(str(tmp_path), {"RESULTS_PICTURE": "sometimes"})


def test_the_missing_secrets_line_names_the_panel_and_the_terminal_s_env_file(clean_env):
    with pytest.raises(ConfigError) as err:
        create_app()
    message = str(err.value)
    assert "Setup Python App" in message and "~/.update_pack.env" in message
    assert "set -a; . ~/.update_pack.env; set +a" in message
