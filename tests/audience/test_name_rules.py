"""One rule per name: a segment's tags, fields and name are the users' (names.py), and no name hides a character."""
from __future__ import annotations

import json
import unicodedata

import pytest
from sqlalchemy import select, text

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem, names
from app.models.audience import Audience
from app.models.segment import Segment
from app.services.audience import segments
from tests.audience.helpers import ok, refused
from tests.broadcast.helpers import create_text_job
from tests.factories import create_users

ZWNJ = "\u200c"
COUNTRYMAN = f"هم{ZWNJ}وطن"  # "هم‌وطن", with Persian's zero-width non-joiner
# One code point of each range of Unicode's Default_Ignorable_Code_Point.
IGNORABLES = ["\u00ad", "\u034f", "\u061c", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u180b", "\u180e", "\u180f",
              "\u200b", "\u200d", "\u200e", "\u200f", "\u202a", "\u202e", "\u2060", "\u2065", "\u2066", "\u206f",
              "\u3164", "\ufe00", "\ufe0f", "\ufeff", "\uffa0", "\ufff0", "\ufff8", "\U0001bca0", "\U0001bca3",
              "\U0001d173", "\U0001d17a", "\U000e0000", "\U000e0001", "\U000e0100", "\U000e0fff"]
RULES = {"tag": names.tag, "field name": names.field_name, "segment name": names.segment_name,
         "source": names.source}


def recipients(target) -> set[int]:
    """Return the user ids a broadcast to target would reach (its job's items)."""
    job = create_text_job(audience=target)
    found = set(db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job.id))
                .scalars())
    db.session.commit()
    return found


def test_tag_none_with_the_users_spelling_leaves_them_out_end_to_end(app, runner):
    create_users([1, 2, 3])
    ok(runner, "users", "tag", "add", "VIP-ویژه", "--ids", "1")
    ok(runner, "segments", "save", "s", "--tag-none", "VIP-ویژه")
    ok(runner, "segments", "save", "VIP", "--tag-any", "VIP-ویژه")
    assert ok(runner, "segments", "count", "s").strip() == "2"
    assert recipients(segments.target("s")) == {2, 3}
    # "To everyone except VIP" reaches everyone but the VIP.
    assert segments.count_rule(segments.target(None, ("VIP",), Audience())) == 2
    assert recipients(segments.target(None, ("vip",), Audience())) == {2, 3}


def test_arabic_yeh_in_a_rule_is_the_users_persian_yeh(app, runner):
    create_users([1, 2, 3])
    ok(runner, "users", "tag", "add", "مشتری", "--ids", "1,2")
    out = ok(runner, "segments", "save", "buyers", "--tag-any", "مشتري")  # Arabic yeh (U+064A)
    assert "(2 users now)" in out
    assert recipients(segments.target("buyers")) == {1, 2}


def test_a_zwnj_tag_names_the_same_tag_in_a_segment_and_prints_as_itself(app, runner):
    create_users([1, 2])
    assert ok(runner, "users", "tag", "add", COUNTRYMAN, "--ids", "1").strip() == \
        f"tag '{COUNTRYMAN}': 1 added, 0 already had it"
    out = ok(runner, "segments", "save", "hamvatan", "--tag-any", COUNTRYMAN)
    assert f"tag-any={COUNTRYMAN} (1 users now)" in out and "\\u200c" not in out
    assert ok(runner, "segments", "count", "hamvatan").strip() == "1"
    later = runner.invoke(args=["segments", "save", "later", "--tag-any", f"نو{ZWNJ}رسیده"])
    assert f"warning: no user has tag 'نو{ZWNJ}رسیده' yet" in later.stderr
    line = refused(runner, "users", "tag", "add", COUNTRYMAN + "!", "--ids", "1")
    assert f"tag '{COUNTRYMAN}!' contains '!' (U+0021 EXCLAMATION MARK)" in line, line


def test_a_field_rule_takes_the_name_as_users_field_set_does(app, runner):
    create_users([1, 2, 3])
    ok(runner, "users", "field", "set", "Plan", "gold", "--ids", "1,2")
    ok(runner, "users", "field", "set", "city", "e\u0301", "--ids", "3")  # stored NFC: é
    assert "(2 users now)" in ok(runner, "segments", "save", "gold", "--field", "Plan=gold")
    assert recipients(segments.target("gold")) == {1, 2}
    assert "(1 users now)" in ok(runner, "segments", "save", "e", "--field", "CITY in \u00e9,x")
    assert "(1 users now)" in ok(runner, "segments", "save", "e2", "--field", "city=e\u0301")


def test_vip_and_VIP_are_one_segment(app, runner):
    create_users([1, 2])
    ok(runner, "users", "tag", "add", "vip", "--ids", "1")
    assert ok(runner, "segments", "save", "VIP", "--tag-any", "vip").startswith("segment 'vip' saved")
    assert "add --replace" in refused(runner, "segments", "save", "vip", "--tag-none", "vip")
    assert ok(runner, "segments", "save", "Vip", "--replace", "--tag-none", "vip").startswith("segment 'vip' replaced")
    assert ok(runner, "segments", "count", "Vip").strip() == "1"
    assert json.loads(ok(runner, "segments", "show", "vip", "--json"))["rule"]["tags_none"] == ["vip"]
    assert [s.name for s in segments.all_segments()] == ["vip"]
    ok(runner, "segments", "save", "مشتري_ها", "--tag-any", "vip")  # Arabic yeh: the Persian name
    assert ok(runner, "segments", "count", "مشتری_ها").strip() == "1"
    ok(runner, "segments", "delete", "VIP")
    assert [s.name for s in segments.all_segments()] == ["مشتری_ها"]


def test_a_rule_saved_before_the_rule_was_one_reads_as_the_users_names(app):
    """A segment stored with an Arabic yeh, a capital or a capitalised field name matches the users' names."""
    create_users([1, 2, 3])
    now = utcnow()
    for user_id in (1, 2):
        db.session.execute(text("INSERT INTO user_tags (user_id, tag, origin, created_at) "
                                   "VALUES (:u, 'مشتری', 'cli', :now)"), {"u": user_id, "now": now})
    db.session.execute(text("INSERT INTO user_fields (user_id, name, value, updated_at) "
                               "VALUES (3, 'plan', 'gold', :now)"), {"now": now})
    rule = {"base": "all", "tags_any": ["مشتري", "Ä"], "fields": [["Plan", "=", ["gold"]]]}
    db.session.add(Segment(name="old", rule=json.dumps({"base": "all", "tags_any": ["مشتري"]}, ensure_ascii=False),
                           created_at=now, updated_at=now))
    db.session.add(Segment(name="old_field", rule=json.dumps(rule, ensure_ascii=False), created_at=now,
                           updated_at=now))
    db.session.commit()
    assert segments.count_rule(segments.rule_of(segments.get("old"))) == 2
    assert recipients(segments.target("old")) == {1, 2}
    assert segments.rule_of(segments.get("old_field")).fields[0].name == "plan"


@pytest.mark.parametrize("ch", IGNORABLES, ids=lambda ch: f"U+{ord(ch):04X}")
@pytest.mark.parametrize("kind", list(RULES))
def test_every_default_ignorable_is_refused_in_every_name_naming_it(kind, ch):
    for raw in (f"vip{ch}", f"{ch}vip", f"v{ch}ip"):
        with pytest.raises(names.BadName) as refusal:
            RULES[kind](raw)
        message = str(refusal.value)
        assert f"U+{ord(ch):04X}" in message and "\n" not in message, message
        if unicodedata.name(ch, ""):
            assert unicodedata.name(ch) in message


@pytest.mark.parametrize("raw", [f"{ZWNJ}vip", f"vip{ZWNJ}", f"v1{ZWNJ}2", f"vip_{ZWNJ}x", f"{ZWNJ}"])
def test_a_zwnj_stands_only_between_two_letters(raw):
    for rule in (names.tag, names.segment_name):
        with pytest.raises(names.BadName) as refusal:
            rule(raw)
        assert "U+200C ZERO WIDTH NON-JOINER" in str(refusal.value)
    assert names.tag(COUNTRYMAN) == names.segment_name(COUNTRYMAN) == COUNTRYMAN


@pytest.mark.parametrize("args", [
    ["users", "tag", "add", "vip\u034f", "--ids", "1"],
    ["users", "tag", "add", "vip\ufe0f", "--ids", "1"],
    ["users", "tag", "add", f"vip{ZWNJ}", "--ids", "1"],
    ["users", "field", "set", "plan\u200b", "gold", "--ids", "1"],
    ["users", "source-tag", "ad\u2060", "vip"],
    ["users", "source-tag", "ad", f"{ZWNJ}vip"],
    ["segments", "save", "vip\u034f", "--tag-any", "vip"],
    ["segments", "save", "s", "--tag-any", "vip\ufe0f"],
    ["segments", "save", "s", "--tag-none", f"{ZWNJ}vip"],
    ["segments", "save", "s", "--field", "plan\u00ad=gold"],
    ["segments", "save", "s", "--source", "ad\u200b"],
])
def test_the_commands_refuse_a_hidden_character_in_one_line_naming_it(app, runner, args):
    create_users([1])
    line = refused(runner, *args)
    assert "U+" in line and "\\u200c" not in line, line
    assert segments.all_segments() == []
    assert db.session.execute(text("SELECT COUNT(*) FROM user_tags")).scalar() == 0
