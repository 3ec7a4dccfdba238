"""Configuration from the environment, with the secrets checked at start-up."""
from __future__ import annotations

import os
from urllib.parse import urlsplit

import click
from sqlalchemy.engine import make_url

from app.db_setup import SQLITE_BUSY_SECONDS

REQUIRED_SECRETS = ("TELEGRAM_BOT_TOKEN", "WEBHOOK_SECRET", "PUMP_TOKEN")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# Characters no host name has: seen there, the URL was split at an @ inside the password.
_NOT_IN_HOSTS = set("@#/?% ")
# Shared hosts set MySQL's wait_timeout low (often 60-300 s): pooled connections are
# recycled just under the common 300 s, and pinged before use for hosts set lower.
MYSQL_POOL_RECYCLE_SECONDS = 280
# An unreachable MySQL fails the request (503, Telegram retries) within this long,
# instead of holding a web worker for the operating system's minutes-long TCP timeout.
MYSQL_CONNECT_TIMEOUT_SECONDS = 10
# Shared hosts cap each user's connections (max_user_connections): a process keeps one
# connection per engine (the app's, the Telegram budget's), so a deployment needs
# 2 x its processes. Threads of one process take turns on that connection; one waits
# at most this long for it (longer than a connection wait at the limit, db_setup).
POOL_TIMEOUT_SECONDS = 30
ONE_CONNECTION = {"pool_size": 1, "max_overflow": 0, "pool_timeout": POOL_TIMEOUT_SECONDS}
# Telegram's largest updates (a 4096-character text with its entities) are tens of KB:
# a bigger body is not an update; it is refused (413) unread past the limit. Env: WEBHOOK_MAX_BODY_BYTES.
DEFAULT_WEBHOOK_MAX_BODY_BYTES = 1_000_000
PERCENT_ENCODE_HINT = ("percent-encode special characters in the user name and password "
                       "(@ -> %40, # -> %23, / -> %2F, : -> %3A, % -> %25)")


class ConfigError(click.ClickException):
    """Raised when the app cannot start with the given configuration.

    A ClickException, so the flask CLI prints its one line and exits 1, with no traceback.
    """


def parse_admin_ids(raw: str | None) -> frozenset[int]:
    """Parse ADMIN_IDS ("1,2, 3") into a set of ints; anything else (1;2, 1,,2, @name) is a clear error."""
    if raw is None or not raw.strip():
        return frozenset()
    ids = set()
    for part in raw.split(","):
        part = part.strip()
        if not (part.isascii() and part.isdigit()):
            what = "an empty item (two commas in a row, or one at an end)" if not part else \
                f"{part!r} is not a Telegram user id"
            raise ConfigError(f"ADMIN_IDS: {what}; expected comma-separated numeric Telegram user ids, "
                              "e.g. ADMIN_IDS=123456789,987654321")
        ids.add(int(part))
    return frozenset(ids)


def parse_int(name: str, raw: str | None) -> int | None:
    """Parse an optional integer variable, naming it in the error."""
    if raw is None or not raw.strip():
        return None
    try:
        return int(raw.strip())
    except ValueError:
        raise ConfigError(f"{name}: {raw!r} is not an integer") from None


def parse_channel_id(raw: str | None) -> int | None:
    """Parse MAIN_CHANNEL_ID, which must be the channel's numeric id, not its @username."""
    try:
        return parse_int("MAIN_CHANNEL_ID", raw)
    except ConfigError:
        raise ConfigError(f"MAIN_CHANNEL_ID: {raw.strip()!r} is not a numeric chat id; use the channel's "
                          "id, which starts with -100 (e.g. MAIN_CHANNEL_ID=-1001234567890)") from None


def parse_log_level(raw: str | None) -> str:
    """Return LOG_LEVEL upper-cased, refusing names the logging module does not know."""
    level = (raw or "INFO").strip().upper()
    if level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL: {raw!r} is not a log level; use one of {', '.join(LOG_LEVELS)}")
    return level


def parse_switch(name: str, raw: str | None, *, default: bool) -> bool:
    """Return an on/off variable (on, off, 1, 0, true, false, yes, no); unset or empty is the default."""
    value = (raw or "").strip().lower()
    if not value:
        return default
    if value in ("on", "1", "true", "yes"):
        return True
    if value in ("off", "0", "false", "no"):
        return False
    raise ConfigError(f"{name}: {raw!r} is not on or off")


def parse_public_url(raw: str | None) -> str | None:
    """Return PUBLIC_URL without its trailing slash (None when unset): an https base, no query or fragment."""
    if raw is None or not raw.strip():
        return None
    url = raw.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError on a malformed port)
    except ValueError:
        parts = None
    if (parts is None or parts.scheme != "https" or not parts.hostname or parts.username or parts.password
            or parts.query or parts.fragment or "?" in url or "#" in url):
        raise ConfigError(f"PUBLIC_URL: {url!r} is not an https base URL; use the app's public address as the "
                          "webhook's, without a query, e.g. PUBLIC_URL=https://bot.example.com")
    return url


def check_database_url(url: str) -> str:
    """Return url if it parses cleanly; the error never repeats the URL, which holds the password."""
    try:
        parsed = make_url(url)  # a port that is not a number raises too
    except Exception:
        raise ConfigError(f"DATABASE_URL is not a valid database URL; {PERCENT_ENCODE_HINT}") from None
    host = parsed.host or ""
    if _NOT_IN_HOSTS & set(host) or (host and "@" in (parsed.database or "")):
        # An unencoded @ in the password moved part of it into the host (or the database name).
        raise ConfigError(f"DATABASE_URL: the host part is not a host name, so the password probably "
                          f"contains @ or # unencoded; {PERCENT_ENCODE_HINT}")
    return url


def database_password(url: str) -> str | None:
    """Return the password inside a database URL (to redact it), or None."""
    try:
        return make_url(url).password
    except Exception:
        return None


def default_database_url(instance_path: str) -> str:
    """Return the embedded default: an SQLite file in the instance folder."""
    return "sqlite:///" + os.path.join(instance_path, "update_pack.sqlite3")


def engine_options(url: str) -> dict:
    """Return SQLAlchemy engine options suited to the database behind url."""
    if url.startswith("mysql") or url.startswith("mariadb"):
        # A connection the server dropped is replaced before use, not raised.
        return {
            **ONE_CONNECTION,
            "pool_pre_ping": True,
            # No ROLLBACK when a connection goes back to the pool: every session ends its own
            # transaction (commit, or close()'s rollback), so the pool's would be a second
            # statement per transaction, counted by a host's query cap.
            "pool_reset_on_return": None,
            "pool_recycle": MYSQL_POOL_RECYCLE_SECONDS,
            "isolation_level": "READ COMMITTED",
            "connect_args": {"charset": "utf8mb4", "connect_timeout": MYSQL_CONNECT_TIMEOUT_SECONDS},
        }
    if url.startswith("sqlite"):
        options = {"connect_args": {"timeout": SQLITE_BUSY_SECONDS, "check_same_thread": False}}
        # An in-memory database is one connection already (a static pool, which takes no size).
        return options if make_url(url).database in (None, "", ":memory:") else {**ONE_CONNECTION, **options}
    return {"pool_pre_ping": True}


def load_config(instance_path: str, env: dict | None = None) -> dict:
    """Build the Flask config mapping from environment variables."""
    env = os.environ if env is None else env
    url = env.get("DATABASE_URL") or default_database_url(instance_path)
    if url.startswith("mysql://"):
        url = "mysql+pymysql://" + url[len("mysql://"):]
    check_database_url(url)
    return {
        "SQLALCHEMY_DATABASE_URI": url,
        "SQLALCHEMY_ENGINE_OPTIONS": engine_options(url),
        "TELEGRAM_BOT_TOKEN": env.get("TELEGRAM_BOT_TOKEN", ""),
        "TELEGRAM_API_BASE_URL": (env.get("TELEGRAM_API_BASE_URL") or "https://api.telegram.org").rstrip("/"),
        "WEBHOOK_SECRET": env.get("WEBHOOK_SECRET", ""),
        "PUMP_TOKEN": env.get("PUMP_TOKEN", ""),
        "ADMIN_IDS": parse_admin_ids(env.get("ADMIN_IDS")),
        "MAIN_CHANNEL_ID": parse_channel_id(env.get("MAIN_CHANNEL_ID")),
        "WEBHOOK_MAX_BODY_BYTES": parse_int("WEBHOOK_MAX_BODY_BYTES", env.get("WEBHOOK_MAX_BODY_BYTES"))
                                   or DEFAULT_WEBHOOK_MAX_BODY_BYTES,
        "SECRET_KEY": env.get("SECRET_KEY") or os.urandom(16).hex(),
        "LOG_LEVEL": parse_log_level(env.get("LOG_LEVEL")),
        "PUBLIC_URL": parse_public_url(env.get("PUBLIC_URL")),
        "RESULTS_PICTURE": parse_switch("RESULTS_PICTURE", env.get("RESULTS_PICTURE"), default=True),
    }


def missing_secrets(config: dict) -> list[str]:
    """Return the names of required secrets that are empty."""
    return [name for name in REQUIRED_SECRETS if not config.get(name)]
