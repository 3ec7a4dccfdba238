"""Configuration from the environment, with the secrets checked at start-up."""
from __future__ import annotations

import os

REQUIRED_SECRETS = ("TELEGRAM_BOT_TOKEN", "WEBHOOK_SECRET", "PUMP_TOKEN")
SECRET_KEYS = REQUIRED_SECRETS


class ConfigError(RuntimeError):
    """Raised when the app cannot start with the given configuration."""


def parse_admin_ids(raw: str | None) -> frozenset[int]:
    """Parse ADMIN_IDS ("1,2, 3") into a set of ints, with a clear error."""
    ids = set()
    for part in (raw or "").replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            ids.add(int(part))
        except ValueError:
            raise ConfigError(f"ADMIN_IDS: {part!r} is not a Telegram user id") from None
    return frozenset(ids)


def parse_int(name: str, raw: str | None) -> int | None:
    """Parse an optional integer variable, naming it in the error."""
    if raw is None or not raw.strip():
        return None
    try:
        return int(raw.strip())
    except ValueError:
        raise ConfigError(f"{name}: {raw!r} is not an integer") from None


def default_database_url(instance_path: str) -> str:
    """Return the embedded default: an SQLite file in the instance folder."""
    return "sqlite:///" + os.path.join(instance_path, "update_pack.sqlite3")


def engine_options(url: str) -> dict:
    """Return SQLAlchemy engine options suited to the database behind url."""
    if url.startswith("mysql") or url.startswith("mariadb"):
        # Shared hosts set wait_timeout low (often 60-300 s): recycle below it
        # and ping before use so a dropped connection is replaced, not raised.
        return {
            "pool_pre_ping": True,
            "pool_recycle": 280,
            "isolation_level": "READ COMMITTED",
            "connect_args": {"charset": "utf8mb4", "connect_timeout": 10},
        }
    if url.startswith("sqlite"):
        return {"connect_args": {"timeout": 30, "check_same_thread": False}}
    return {"pool_pre_ping": True}


def load_config(instance_path: str, env: dict | None = None) -> dict:
    """Build the Flask config mapping from environment variables."""
    env = os.environ if env is None else env
    url = env.get("DATABASE_URL") or default_database_url(instance_path)
    if url.startswith("mysql://"):
        url = "mysql+pymysql://" + url[len("mysql://"):]
    return {
        "SQLALCHEMY_DATABASE_URI": url,
        "SQLALCHEMY_ENGINE_OPTIONS": engine_options(url),
        "TELEGRAM_BOT_TOKEN": env.get("TELEGRAM_BOT_TOKEN", ""),
        "TELEGRAM_API_BASE_URL": (env.get("TELEGRAM_API_BASE_URL") or "https://api.telegram.org").rstrip("/"),
        "WEBHOOK_SECRET": env.get("WEBHOOK_SECRET", ""),
        "PUMP_TOKEN": env.get("PUMP_TOKEN", ""),
        "ADMIN_IDS": parse_admin_ids(env.get("ADMIN_IDS")),
        "MAIN_CHANNEL_ID": parse_int("MAIN_CHANNEL_ID", env.get("MAIN_CHANNEL_ID")),
        "WEBHOOK_MAX_BODY_BYTES": parse_int("WEBHOOK_MAX_BODY_BYTES", env.get("WEBHOOK_MAX_BODY_BYTES")) or 1_000_000,
        "SECRET_KEY": env.get("SECRET_KEY") or os.urandom(16).hex(),
        "LOG_LEVEL": env.get("LOG_LEVEL", "INFO"),
    }


def missing_secrets(config: dict) -> list[str]:
    """Return the names of required secrets that are empty."""
    return [name for name in REQUIRED_SECRETS if not config.get(name)]
