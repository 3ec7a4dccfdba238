"""Migration 0016 (admin read indexes, stats snapshot) up and down on this run's database, with rows in place."""
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from app import create_app
from app.extensions import db
from tests.conftest import app_config


def user_indexes() -> dict[str, list[str]]:
    return {i["name"]: i["column_names"] for i in inspect(db.engine).get_indexes("users")}


def rows() -> tuple:
    with db.engine.begin() as conn:
        return (conn.execute(text("SELECT id, start_source FROM users")).all(),
                conn.execute(text("SELECT user_id, status FROM broadcast_job_items")).all())


def test_0016_swaps_the_user_indexes_adds_the_snapshot_keeps_rows_and_downgrades(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade(revision="0015")
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO users (id, first_name, start_source, main_channel_status, started_at, "
                              "last_seen_at) VALUES (7, 'کاربر', 'ads', 'unknown', '2026-01-01 00:00:00', "
                              "'2026-01-02 00:00:00')"))
            conn.execute(text("INSERT INTO broadcast_jobs (id, status, audience, content_type, text, batch_size, "
                              "created_at) VALUES (1, 'completed', 'all', 'text', 'سلام', 25, '2026-01-01 00:00:00')"))
            conn.execute(text("INSERT INTO broadcast_job_items (job_id, user_id, status) VALUES (1, 7, 'sent')"))
        before = rows()
        assert {"ix_users_source", "ix_users_last_seen"} <= set(user_indexes())

        upgrade(revision="0016")
        indexes = user_indexes()
        assert indexes["ix_users_sources"] == ["start_source", "started_at", "is_blocked", "opted_out_at",
                                               "last_seen_at", "main_channel_status", "language_code"]
        assert indexes["ix_users_presend"] == ["is_blocked", "opted_out_at", "last_seen_at", "started_at",
                                               "main_channel_status", "language_code", "start_source"]
        assert not {"ix_users_source", "ix_users_last_seen"} & set(indexes)
        assert "ix_users_audience" in indexes  # the population's index stays
        assert "stats_snapshots" in inspect(db.engine).get_table_names()
        assert rows() == before  # no table was copied: the job's items are all there
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO stats_snapshots (id, taken_at, took_ms, figures) "
                              "VALUES (1, '2026-01-02 00:00:00', 5, '{\"counts\": {}}')"))

        downgrade(revision="0015")
        indexes = user_indexes()
        assert indexes["ix_users_source"] == ["start_source", "started_at"]
        assert indexes["ix_users_last_seen"] == ["is_blocked", "last_seen_at"]
        assert not {"ix_users_sources", "ix_users_presend"} & set(indexes)
        assert "stats_snapshots" not in inspect(db.engine).get_table_names()
        assert rows() == before
        db.engine.dispose()
