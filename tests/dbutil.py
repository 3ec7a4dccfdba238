"""Create and drop the per-run test database named by TEST_DATABASE_URL."""
from __future__ import annotations

import os
import uuid

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


def base_test_url(tmp_dir: str) -> str:
    """Return TEST_DATABASE_URL, or a temporary SQLite file."""
    return os.environ.get("TEST_DATABASE_URL") or "sqlite:///" + os.path.join(tmp_dir, "test.sqlite3")


def is_mysql(url: str) -> bool:
    """Tell whether url points at MySQL/MariaDB."""
    return url.startswith("mysql") or url.startswith("mariadb")


def is_pymysql(url: str) -> bool:
    """Tell whether url connects through PyMySQL."""
    return make_url(url).get_driver_name() == "pymysql"


def create_fresh_mysql_database(url: str) -> str:
    """Create a new, empty utf8mb4 database next to url's and return its URL."""
    parsed = make_url(url)
    name = f"{parsed.database or 'test'}_{uuid.uuid4().hex[:10]}"
    server = create_engine(parsed.set(database=""), isolation_level="AUTOCOMMIT")
    with server.connect() as conn:
        conn.execute(text(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"))
        tls = conn.execute(text("SELECT @@have_ssl")).scalar()
    server.dispose()
    query = dict(parsed.query)
    query.setdefault("charset", "utf8mb4")
    if tls != "YES" and is_pymysql(url):
        # The server offers no TLS, yet PyMySQL builds a TLS context (loading
        # the system's CAs) for every connection before falling back to
        # plaintext; the tests open thousands of connections.
        query.setdefault("ssl_disabled", "true")
    return parsed.set(database=name, query=query).render_as_string(hide_password=False)


def drop_mysql_database(url: str) -> None:
    """Drop the database url names."""
    parsed = make_url(url)
    server = create_engine(parsed.set(database=""), isolation_level="AUTOCOMMIT")
    with server.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS `{parsed.database}`"))
    server.dispose()
