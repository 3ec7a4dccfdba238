"""Migration 0035 gives stored segments the one name rule: case twins become one name and a suffixed one, audited."""
from flask_migrate import downgrade, upgrade
from sqlalchemy import text

from app import create_app
from app.extensions import db
from app.services.audience import segments
from tests.conftest import app_config

STORED = [(1, "VIP"), (2, "vip"), (3, "Vip"), (4, "News"), (5, "مشتري"), (6, "x²"), (7, "___"), (8, "Ok")]


def names() -> dict[int, str]:
    with db.engine.begin() as conn:
        return dict(conn.execute(text("SELECT id, name FROM segments")).all())


def test_0035_normalises_names_keeps_every_rule_and_says_what_moved(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade(revision="0030")
        with db.engine.begin() as conn:
            for segment_id, name in STORED:
                conn.execute(text("INSERT INTO segments (id, name, rule, created_at, updated_at) VALUES "
                                  "(:id, :name, :rule, '2026-01-01 00:00:00', '2026-01-01 00:00:00')"),
                             {"id": segment_id, "name": name, "rule": f'{{"base": "all", "received": [{segment_id}]}}'})
        upgrade(revision="0035")
        # vip (already normal) keeps its name; its case twins keep their rules under vip-<id>.
        assert names() == {1: "vip-1", 2: "vip", 3: "vip-3", 4: "news", 5: "مشتری", 6: "segment-6",
                           7: "segment-7", 8: "ok"}
        assert segments.rule_of(segments.get("VIP")).received == (2,)
        assert segments.rule_of(segments.get("Vip-1")).received == (1,)
        with db.engine.begin() as conn:
            audited = set(conn.execute(text("SELECT detail FROM audit_log WHERE action = 'segment_renamed' "
                                            "AND actor = 'migration'")).scalars())
        assert audited == {"segment #1: VIP -> vip-1", "segment #3: Vip -> vip-3", "segment #4: News -> news",
                           "segment #5: مشتري -> مشتری", "segment #6: x² -> segment-6",
                           "segment #7: ___ -> segment-7", "segment #8: Ok -> ok"}
        downgrade(revision="0030")
        assert len(names()) == len(STORED)
        db.session.remove()
