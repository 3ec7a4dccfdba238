"""Migration 0032: a chain step the cap skipped before it waits after it; its downgrade drops the column."""
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from app import create_app
from app.extensions import db
from tests.conftest import app_config

AT = "'2026-01-01 00:00:00'"


def test_0032_makes_a_step_the_cap_skipped_wait_and_downgrades(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade(revision="0030")
        with db.engine.begin() as conn:
            conn.execute(text(f"INSERT INTO chains (id, name, status, trigger_kind, created_at) "
                              f"VALUES (1, 'welcome', 'active', 'joined', {AT})"))
            conn.execute(text("INSERT INTO chain_steps (id, chain_id, position, delay_seconds, text) "
                              "VALUES (1, 1, 1, 0, 'Hi')"))
            conn.execute(text(f"INSERT INTO broadcast_jobs (id, status, audience, content_type, text, batch_size, "
                              f"created_at, chain_step_id) VALUES (1, 'completed', 'all', 'text', 'Hi', 25, {AT}, 1)"))
            for user, status, error in ((7, "sent", None), (8, "skipped", "frequency_cap"), (9, "failed", "x")):
                conn.execute(text("INSERT INTO broadcast_job_items (job_id, user_id, status, error) "
                                  "VALUES (1, :u, :s, :e)"), {"u": user, "s": status, "e": error})
                conn.execute(text(f"INSERT INTO chain_deliveries (step_id, user_id, job_id, claimed_at) "
                                  f"VALUES (1, :u, 1, {AT})"), {"u": user})
        upgrade(revision="0032")
        with db.engine.begin() as conn:
            waiting = conn.execute(text("SELECT user_id FROM chain_deliveries WHERE wait_until IS NOT NULL")).all()
        assert waiting == [(8,)]  # only the cap's skip waits; a send or a failure is as it was
        downgrade(revision="0030")
        assert "wait_until" not in {c["name"] for c in inspect(db.engine).get_columns("chain_deliveries")}
        with db.engine.begin() as conn:
            assert conn.execute(text("SELECT COUNT(*) FROM chain_deliveries")).scalar() == 3
        db.engine.dispose()
