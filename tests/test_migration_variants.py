"""Migration 0015 (language variants) up and down on this run's database, with a job and an item in place."""
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from app import create_app
from app.extensions import db
from tests.conftest import app_config


def columns(table: str) -> set[str]:
    return {c["name"] for c in inspect(db.engine).get_columns(table)}


def test_0015_adds_the_variant_columns_keeps_rows_and_downgrades(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade(revision="0014")
        with db.engine.begin() as conn:
            conn.execute(text("INSERT INTO broadcast_jobs (id, status, audience, content_type, text, batch_size, "
                              "created_at) VALUES (1, 'completed', 'all', 'text', 'سلام', 25, '2026-01-01 00:00:00')"))
            conn.execute(text("INSERT INTO broadcast_job_items (job_id, user_id, status) VALUES (1, 7, 'sent')"))
        upgrade(revision="0015")
        assert "variants" in columns("broadcast_jobs") and "variant" in columns("broadcast_job_items")
        with db.engine.begin() as conn:
            assert conn.execute(text("SELECT variants FROM broadcast_jobs")).scalar() is None
            assert conn.execute(text("SELECT variant FROM broadcast_job_items")).scalar() is None
            persian = '{"en": "Hi 🌹", "ar": "مرحبا 🌙"}'
            conn.execute(text("UPDATE broadcast_jobs SET variants = :v"), {"v": persian})
            conn.execute(text("UPDATE broadcast_job_items SET variant = 'en'"))
            assert conn.execute(text("SELECT variants FROM broadcast_jobs")).scalar() == persian
        downgrade(revision="0014")
        assert "variants" not in columns("broadcast_jobs") and "variant" not in columns("broadcast_job_items")
        with db.engine.begin() as conn:
            assert conn.execute(text("SELECT text FROM broadcast_jobs")).scalar() == "سلام"
            assert conn.execute(text("SELECT status FROM broadcast_job_items")).scalar() == "sent"
        db.engine.dispose()
