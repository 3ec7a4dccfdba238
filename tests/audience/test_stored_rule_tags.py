"""A stored rule naming a tag the tag rule now refuses is read, counted and sent to, never raised on.

No user carries such a tag (migration 0035), so `tag-any` of it matches no
one and `tag-none` of it everyone, as before; input from admins stays strict.
"""
from __future__ import annotations

import json

from sqlalchemy import insert, select

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem
from app.models.segment import Segment
from app.models.user_data import UserTag
from app.services.audience import tags
from app.services.broadcast.sending.drain import pump
from tests.audience.population import seed, uid
from tests.broadcast.helpers import engine_settings, reload

SUBSCRIBED = {1, 2, 3, 4, 5, 6}
# Tags an older rule ([\w-]{1,64}) let into a saved rule: a superscript digit, no letter or digit, a Hangul filler.
REFUSED = ("x²", "___", "\u3164")


def run(runner, *args):
    """Invoke one command."""
    return runner.invoke(args=list(args))


def store(name: str, rule: dict) -> None:
    """Store a segment as an older version saved it (no check)."""
    now = utcnow()
    db.session.execute(insert(Segment).values(name=name, rule=json.dumps(rule, ensure_ascii=False), created_at=now,
                                              updated_at=now))
    db.session.commit()


def sent_to(job_id: int) -> set[int]:
    """Return the user offsets the job sent to."""
    found = db.session.execute(select(BroadcastJobItem.user_id).where(
        BroadcastJobItem.job_id == job_id, BroadcastJobItem.status == "sent")).scalars()
    offsets = {i - uid(0) for i in found}
    db.session.commit()
    return offsets


def test_stored_refused_tags_list_count_and_send_to_the_right_users(runner, app, simulator):
    seed()
    store("odd_any", {"base": "all", "tags_any": list(REFUSED)})
    store("odd_none", {"base": "all", "tags_none": [*REFUSED, "VIP"]})
    listed = run(runner, "segments", "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert {r["name"]: r["count"] for r in json.loads(listed.stdout)} == {"odd_any": 0, "odd_none": 4}
    table = run(runner, "segments", "list")
    assert table.exit_code == 0 and "'\\u3164'" in table.stdout, table.output
    assert run(runner, "segments", "count", "odd_any").stdout.strip() == "0"
    assert run(runner, "segments", "count", "odd_none").stdout.strip() == "4"
    # A tags-only exclusion of no one leaves everyone in.
    assert run(runner, "segments", "count", "odd_none", "--exclude", "odd_any").stdout.strip() == "4"
    created = run(runner, "broadcast", "create", "--text", "سلام", "--segment", "odd_none",
                  "--exclude-segment", "odd_any")
    assert created.exit_code == 0, created.output
    job_id = int(created.stdout)
    assert json.loads(reload(job_id).audience_rule)["rule"]["tags_none"] == sorted([*REFUSED, "vip"])
    assert run(runner, "broadcast", "status", str(job_id)).exit_code == 0
    assert pump(job_id, 20, settings=engine_settings(broadcast_rate_per_second=28)).stop == "done"
    assert sent_to(job_id) == SUBSCRIBED - {1, 2}  # users 1 and 2 carry vip
    refused = run(runner, "broadcast", "create", "--text", "سلام", "--segment", "odd_any")
    assert refused.exit_code == 2 and "Traceback" not in refused.output, refused.output


def test_admins_still_cannot_type_a_refused_tag(runner, app):
    result = run(runner, "segments", "save", "typed", "--tag-any", "x²")
    assert result.exit_code == 2 and "x²" in result.stderr, result.output


def test_a_stored_refused_tap_tag_tags_no_one(app):
    seed()
    assert [tags.tag_user(uid(6), tag, tags.ORIGIN_BUTTON) for tag in (*REFUSED, "VIP")] == [False] * 3 + [True]
    carried = db.session.execute(select(UserTag.tag).where(UserTag.user_id == uid(6))).scalars().all()
    assert carried == ["vip"]
