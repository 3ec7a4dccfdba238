"""Migration 0035 gives stored tags the tag rule: invisible twins merge into one row, empty ones go, audited."""
import json
from datetime import datetime

from flask_migrate import upgrade
from sqlalchemy import insert, select, text

from app import create_app
from app.extensions import db
from app.models import BroadcastJob, User, names
from app.models.chain import Chain
from app.models.segment import Segment
from app.models.user_data import ImportRow, SourceTag, UserTag
from tests.conftest import app_config

T1, T2, T3 = (datetime(2026, 1, d) for d in (1, 2, 3))
FILLER, CGJ, ZWNJ = "\u3164", "\u034f", "\u200c"  # a Hangul filler (a letter), a grapheme joiner (a mark)
# (user, tag, origin, added): each as an older rule let it in.
STORED = [(1, "vip", "cli", T2), (1, f"vip{ZWNJ}", "button", T1), (1, f"vi{CGJ}p", "csv", T3),
          (2, f"vip{FILLER}", "csv", T3),
          (3, FILLER, "cli", T1), (3, f"_{FILLER}", "cli", T1), (3, f"نیم{ZWNJ}فاصله", "cli", T1),
          (4, "كتاب", "admin", T2)]


def seed() -> None:
    """Insert the users, their tags and every other place a tag is stored, as the older rules stored them."""
    db.session.execute(insert(User), [dict(id=n, first_name="u", started_at=T1, last_seen_at=T1) for n in range(1, 5)])
    db.session.execute(insert(UserTag), [dict(user_id=u, tag=t, origin=o, created_at=at) for u, t, o, at in STORED])
    db.session.add_all([
        SourceTag(source="promo", tag=f"vip{ZWNJ}", created_at=T1), SourceTag(source="odd", tag=FILLER, created_at=T1),
        Chain(id=1, name="c", status="active", trigger_kind="tag", trigger_value=f"vip{FILLER}", created_at=T1),
        Chain(id=2, name="d", status="active", trigger_kind="source", trigger_value="Promo", created_at=T1),
        BroadcastJob(id=1, status="completed", audience="all", content_type="text", text="x", created_at=T1,
                     tap_text="t", tap_tag=f"VIP{ZWNJ}",
                     keyboard=json.dumps({"rows": [[{"kind": "tap", "text": "k", "tag": f"vip{FILLER}"}]]}),
                     audience_rule=json.dumps({"segment": "s", "exclude": [], "rule": {
                         "base": "all", "tags_any": [f"vip{FILLER}", "vip", "x²"]}})),
        Segment(id=1, name="s", rule=json.dumps({"base": "all", "tags_none": [f"vip{ZWNJ}", "Ok"]}),
                created_at=T1, updated_at=T1),
        ImportRow(import_id="i", seq=1, user_id=4, op="+", name=f"vip{ZWNJ}", created_at=T1),
        ImportRow(import_id="i", seq=2, user_id=4, op="-", name=FILLER, created_at=T1),
        ImportRow(import_id="i", seq=3, user_id=4, op="=", name="plan", value=f"a{ZWNJ}", created_at=T1)])
    db.session.commit()


def rows(query) -> list:
    """Return a query's rows as tuples, ending the read."""
    found = [tuple(row) for row in db.session.execute(query)]
    db.session.commit()
    return found


def test_0035_merges_invisible_twins_drops_empty_tags_and_normalises_every_stored_tag(empty_database):
    app = create_app(app_config(empty_database, "http://127.0.0.1:9"))
    with app.app_context():
        upgrade(revision="0033")
        seed()
        upgrade(revision="0035")
        # User 1's three spellings of vip are one row: the earliest added, with its origin.
        assert sorted(rows(select(UserTag.user_id, UserTag.tag, UserTag.origin, UserTag.created_at))) == [
            (1, "vip", "button", T1), (2, "vip", "csv", T3), (3, f"نیم{ZWNJ}فاصله", "cli", T1),
            (4, "کتاب", "admin", T2)]
        # Every tag a user carries is one the CLI can name (so `users tag remove` can take it off).
        assert all(names.tag(tag) == tag for (tag,) in rows(select(UserTag.tag)))
        with db.engine.begin() as conn:
            audited = set(conn.execute(text("SELECT action, detail FROM audit_log WHERE actor = 'migration' "
                                            "AND action LIKE 'tag_%'")).all())
        assert audited == {("tag_dropped", "tag \\u3164: dropped from 1 users (no letter or digit)"),
                           ("tag_dropped", "tag _\\u3164: dropped from 1 users (no letter or digit)"),
                           ("tag_renamed", "tag vi\\u034fp -> vip: 0 users moved, 1 merged"),
                           ("tag_renamed", "tag vip\\u200c -> vip: 0 users moved, 1 merged"),
                           ("tag_renamed", "tag vip\\u3164 -> vip: 1 users moved, 0 merged"),
                           ("tag_renamed", "tag كتاب -> کتاب: 1 users moved, 0 merged")}
        # Tags that name users elsewhere take the normal form; one the rule refuses stays as stored.
        assert sorted(rows(select(SourceTag.source, SourceTag.tag))) == [("odd", FILLER), ("promo", "vip")]
        assert sorted(rows(select(Chain.id, Chain.trigger_value))) == [(1, "vip"), (2, "Promo")]
        job = rows(select(BroadcastJob.tap_tag, BroadcastJob.keyboard, BroadcastJob.audience_rule))[0]
        assert job[0] == "vip" and json.loads(job[1])["rows"][0][0]["tag"] == "vip"
        assert json.loads(job[2])["rule"]["tags_any"] == ["vip", "x²"]
        assert json.loads(rows(select(Segment.rule))[0][0])["tags_none"] == ["vip", "ok"]
        assert sorted(rows(select(ImportRow.seq, ImportRow.name, ImportRow.value))) == [
            (1, "vip", None), (3, "plan", f"a{ZWNJ}")]
        db.session.remove()
