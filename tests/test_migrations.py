"""Migrations: from empty on this run's database kind, no drift from the models, one head."""
import os

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from app import create_app
from app.extensions import db
from tests.conftest import app_config
from tests.dbutil import is_mysql

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_upgrade_from_empty_matches_the_models_and_downgrades_cleanly(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade()
        with db.engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            diff = compare_metadata(context, db.metadata)
        assert diff == [], f"models and migrations drifted apart: {diff}"
        tables = set(inspect(db.engine).get_table_names())
        assert {"users", "settings", "processed_updates", "admin_states",
                "broadcast_jobs", "broadcast_job_items", "audit_log"} <= tables
        downgrade(revision="base")
        assert set(inspect(db.engine).get_table_names()) <= {"alembic_version"}
        upgrade()
        db.engine.dispose()


def test_mysql_tables_are_utf8mb4(database_url, app):
    if not is_mysql(database_url):
        pytest.skip("MySQL/MariaDB only: SQLite stores UTF-8 text natively")
    rows = db.session.execute(db.text(
        "SELECT table_name, table_collation FROM information_schema.tables WHERE table_schema = DATABASE()"
    )).all()
    assert rows and all(collation.startswith("utf8mb4") for _, collation in rows), rows


def test_migrations_form_a_single_numbered_line():
    script = ScriptDirectory(os.path.join(ROOT, "migrations"))
    assert len(script.get_heads()) == 1
    revisions = [rev.revision for rev in script.walk_revisions()]
    assert revisions == sorted(revisions, reverse=True), "revisions are numbered in order"
