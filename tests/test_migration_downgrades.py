"""Every downgrade from head keeps the rows in place: step by step, with users, jobs, their items and audit rows."""
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from app import create_app
from app.extensions import db
from tests.conftest import app_config

# Down to 0002, the first revision with jobs and items: every later downgrade that rebuilds a table runs.
STEPS = ["0014", "0013", "0012", "0011", "0010", "0009", "0008", "0007", "0006", "0005", "0004", "0003", "0002"]
KEPT = ("users", "broadcast_jobs", "broadcast_job_items", "audit_log")


def _rows_in_place(conn) -> None:
    """Three users, two jobs (the second a retry of the first) with their items, and audit rows."""
    for uid in (7, 8, 9):
        conn.execute(text("INSERT INTO users (id, first_name, language_code, started_at, last_seen_at) "
                          "VALUES (:id, 'سارا', 'fa', '2026-01-01 00:00:00', '2026-01-02 00:00:00')"), {"id": uid})
    conn.execute(text("INSERT INTO broadcast_jobs (id, status, audience, content_type, text, batch_size, created_at, "
                      "total_count, sent_count) VALUES (1, 'completed', 'all', 'text', 'سلام', 25, "
                      "'2026-01-01 00:00:00', 3, 3)"))
    conn.execute(text("INSERT INTO broadcast_jobs (id, status, audience, content_type, text, batch_size, created_at, "
                      "retry_of, total_count) VALUES (2, 'queued', 'all', 'text', 'سلام', 25, "
                      "'2026-01-03 00:00:00', 1, 2)"))
    for job_id, users, status in ((1, (7, 8, 9), "sent"), (2, (7, 8), "pending")):
        for uid in users:
            conn.execute(text("INSERT INTO broadcast_job_items (job_id, user_id, status) VALUES (:j, :u, :s)"),
                         {"j": job_id, "u": uid, "s": status})
    for job_id in (1, 2):
        conn.execute(text("INSERT INTO audit_log (at, actor, action, job_id) "
                          "VALUES ('2026-01-01 00:00:00', 'cli', 'created', :j)"), {"j": job_id})


def _counts(tables) -> dict[str, int]:
    with db.engine.connect() as conn:
        return {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar() for t in tables}


def test_each_downgrade_from_head_loses_no_row(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade()
        with db.engine.begin() as conn:
            _rows_in_place(conn)
        before = _counts(KEPT)
        assert before == {"users": 3, "broadcast_jobs": 2, "broadcast_job_items": 5, "audit_log": 2}
        for revision in STEPS:
            downgrade(revision=revision)
            tables = [t for t in KEPT if t in set(inspect(db.engine).get_table_names())]
            assert _counts(tables) == {t: before[t] for t in tables}, f"rows lost going down to {revision}"
        with db.engine.connect() as conn:
            items = conn.execute(text("SELECT job_id, user_id, status FROM broadcast_job_items "
                                      "ORDER BY job_id, user_id")).all()
            assert [tuple(r) for r in items] == [(1, 7, "sent"), (1, 8, "sent"), (1, 9, "sent"),
                                                 (2, 7, "pending"), (2, 8, "pending")]
            assert conn.execute(text("SELECT text FROM broadcast_jobs WHERE id = 1")).scalar() == "سلام"
        kept = ("users", "broadcast_jobs", "broadcast_job_items")  # audit_log went with 0006's downgrade
        for revision in [*reversed(STEPS[:-1]), "head"]:  # and back up, step by step, with the rows still there
            upgrade(revision=revision)
            assert _counts(kept) == {t: before[t] for t in kept}, f"rows lost going up to {revision}"
        db.engine.dispose()
