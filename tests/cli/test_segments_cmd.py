"""`flask segments …` and `broadcast create --segment / --exclude-segment`: saved, counted, sent, snapshotted."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJobItem
from app.models.segment import Segment
from tests.audience.helpers import ok
from tests.audience.population import JOB, seed, uid
from tests.broadcast.helpers import reload
from tests.factories import create_users


def run(runner, *args):
    """Invoke one command."""
    return runner.invoke(args=list(args))


def segment_rows() -> list[tuple[str, str]]:
    """Return every (name, rule) stored."""
    rows = [(s.name, s.rule) for s in db.session.execute(select(Segment).order_by(Segment.name)).scalars()]
    db.session.commit()
    return rows


def items(job_id: int) -> set[int]:
    """Return a job's recipients as user offsets."""
    ids = db.session.execute(select(BroadcastJobItem.user_id).where(BroadcastJobItem.job_id == job_id)).scalars()
    found = {i - uid(0) for i in ids}
    db.session.commit()
    return found


def test_save_list_show_count_delete(runner, app):
    seed()
    saved = run(runner, "segments", "save", "vip_tehran", "--tag-any", "VIP", "--field", "city in تهران,شیراز")
    assert saved.exit_code == 0, saved.output
    assert "segment 'vip_tehran' saved: all tag-any=vip city in تهران,شیراز (2 users now)" in saved.stdout
    assert run(runner, "segments", "save", "gold", "--field", "plan=gold").exit_code == 0
    listed = run(runner, "segments", "list", "--json")
    assert [(r["name"], r["count"]) for r in json.loads(listed.stdout)] == [("gold", 2), ("vip_tehran", 2)]
    assert "vip_tehran" in run(runner, "segments", "list").stdout
    shown = json.loads(run(runner, "segments", "show", "gold", "--json").stdout)
    assert shown["rule"] == {"base": "all", "fields": [["plan", "=", ["gold"]]]} and shown["count"] == 2
    assert run(runner, "segments", "count", "vip_tehran").stdout.strip() == "2"
    assert run(runner, "segments", "count", "vip_tehran", "--exclude", "gold").stdout.strip() == "1"
    deleted = run(runner, "segments", "delete", "gold")
    assert deleted.exit_code == 0 and [n for n, _ in segment_rows()] == ["vip_tehran"]


def test_unknown_tag_or_field_saves_with_a_warning_and_an_empty_segment_warns(runner, app):
    seed()
    result = run(runner, "segments", "save", "later", "--tag-any", "beta", "--field", "tier=2")
    assert result.exit_code == 0, result.output
    assert "warning: no user has tag 'beta' yet" in result.stderr
    assert "warning: no user has field 'tier' yet" in result.stderr
    assert "matches nobody now" in result.stderr and "(0 users now)" in result.stdout


BAD = {
    "bad field": (["--field", "plan"], "--field 'plan': write NAME=VALUE, NAME!=VALUE or 'NAME in V1,V2'"),
    "bad field name": (["--field", "plan-x=gold"], "field name 'plan-x' is not 1-64 of a-z, 0-9 and '_'"),
    "empty in": (["--field", "city in ,"], "a value is missing"),
    "no condition": ([], "the rule has no condition"),
    "unknown job": (["--received", "777"], "no broadcast job 777"),
    "bad tag": (["--tag-all", "a b"], "tag 'a b' contains a space; a tag is 1 to 64 letters, digits, _ or -"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_rules_are_refused_in_one_line_and_change_nothing(runner, app, case):
    seed()
    assert run(runner, "segments", "save", "keep", "--tag-any", "vip").exit_code == 0
    before = segment_rows()
    args, expected = BAD[case]
    result = run(runner, "segments", "save", "keep", "--replace", *args)
    assert result.exit_code == 2, result.output
    assert expected in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert segment_rows() == before


@pytest.mark.parametrize("name", ["two words", "x" * 65, "a/b", ""])
def test_odd_names_are_refused(runner, app, name):
    seed()
    result = run(runner, "segments", "save", name, "--tag-any", "vip")
    assert result.exit_code == 2 and "1 to 64 letters, digits, _ or -" in result.stderr
    assert segment_rows() == []


def test_existing_name_needs_replace_and_unknown_names_are_named(runner, app):
    seed()
    assert run(runner, "segments", "save", "vip", "--tag-any", "vip").exit_code == 0
    again = run(runner, "segments", "save", "vip", "--tag-any", "fa_news")
    assert again.exit_code == 2 and "add --replace" in again.stderr
    for args in (["show", "nope"], ["count", "nope"], ["count", "vip", "--exclude", "nope"], ["delete", "nope"]):
        result = run(runner, "segments", *args)
        assert result.exit_code == 2 and "no segment 'nope'" in result.stderr, (args, result.output)
    persian = run(runner, "segments", "save", "مشتریان_طلایی", "--field", "plan=gold")
    assert persian.exit_code == 0 and run(runner, "segments", "count", "مشتریان_طلایی").stdout.strip() == "2"


def create(runner, *args):
    """Create a text broadcast with args; return the result."""
    return run(runner, "broadcast", "create", "--text", "سلام", *args)


def test_broadcast_to_a_segment_keeps_its_snapshot_after_edit_and_delete(runner, app):
    seed()
    assert run(runner, "segments", "save", "vip", "--tag-any", "vip").exit_code == 0
    assert run(runner, "segments", "save", "clickers", "--clicked", str(JOB)).exit_code == 0
    at = (utcnow() + timedelta(days=30)).strftime("%Y-%m-%dT%H:%MZ")
    created = create(runner, "--segment", "vip", "--exclude-segment", "clickers", "--at", at)
    assert created.exit_code == 0, created.output
    job_id = int(created.stdout)
    assert items(job_id) == {2} and reload(job_id).status == "scheduled"
    status = json.loads(run(runner, "broadcast", "status", str(job_id)).stdout)
    assert (status["segment"], status["exclude_segments"]) == ("vip", ["clickers"])
    assert "vip -clickers" in run(runner, "broadcast", "list").stdout
    # Editing and deleting the segments changes neither the job's population nor its snapshot.
    assert run(runner, "segments", "save", "vip", "--replace", "--tag-any", "fa_news").exit_code == 0
    assert run(runner, "segments", "delete", "clickers").exit_code == 0
    assert items(job_id) == {2}
    job = reload(job_id)
    assert json.loads(job.audience_rule)["rule"] == {"base": "all", "tags_any": ["vip"]}
    assert json.loads(job.audience_rule)["exclude"][0]["rule"] == {"base": "all", "clicked": [JOB]}


def test_population_equals_the_count(runner, app):
    seed()
    assert run(runner, "segments", "save", "news", "--tag-any", "fa_news", "--tag-any", "vip").exit_code == 0
    assert run(runner, "segments", "save", "gold", "--field", "plan=gold").exit_code == 0
    count = int(run(runner, "segments", "count", "news", "--exclude", "gold").stdout)
    job_id = int(create(runner, "--segment", "news", "--exclude-segment", "gold").stdout)
    total = db.session.execute(select(func.count()).where(BroadcastJobItem.job_id == job_id)).scalar_one()
    assert count == total == reload(job_id).total_count == 1


def test_exclusions_go_with_a_plain_audience_too(runner, app):
    seed()
    assert run(runner, "segments", "save", "vip", "--tag-any", "vip").exit_code == 0
    job_id = int(create(runner, "--audience", "all", "--lang", "fa", "--exclude-segment", "vip").stdout)
    assert items(job_id) == {3, 4, 5, 6}


BROADCAST_BAD = {
    "unknown segment": (["--segment", "nope"], "no segment 'nope'"),
    "unknown exclusion": (["--audience", "all", "--exclude-segment", "nope"], "no segment 'nope'"),
    "both": (["--audience", "all", "--segment", "vip"], "give exactly one of --audience or --segment"),
    "neither": ([], "give exactly one of --audience or --segment"),
    "segment with filters": (["--segment", "vip", "--lang", "fa"], "--segment carries its own filters"),
    "empty after exclusions": (["--segment", "vip", "--exclude-segment", "vip"],
                               "segment 'vip' has no users after its exclusions; nothing to send"),
}


@pytest.mark.parametrize("case", list(BROADCAST_BAD))
def test_broadcast_refusals_create_no_job(runner, app, case):
    seed()
    assert run(runner, "segments", "save", "vip", "--tag-any", "vip").exit_code == 0
    args, expected = BROADCAST_BAD[case]
    result = create(runner, *args)
    assert result.exit_code == 2 and expected in result.stderr, result.output
    assert "Traceback" not in result.output
    assert {r["id"] for r in json.loads(run(runner, "broadcast", "list", "--json").stdout)} == {JOB, 901}


def test_a_retry_takes_the_ledger_and_shows_the_snapshot_after_the_segment_is_gone(runner, app):
    seed()
    assert run(runner, "segments", "save", "vip", "--tag-any", "vip").exit_code == 0
    job_id = int(create(runner, "--segment", "vip").stdout)
    assert run(runner, "broadcast", "cancel", str(job_id)).exit_code == 0
    # The segment now names other users, then goes: the retry still reaches the job's own unsent users.
    assert run(runner, "segments", "save", "vip", "--replace", "--tag-any", "fa_news").exit_code == 0
    assert run(runner, "segments", "delete", "vip").exit_code == 0
    retried = run(runner, "broadcast", "retry", str(job_id))
    assert retried.exit_code == 0, retried.output
    retry_id = max(j for j in (int(w) for w in retried.stdout.split() if w.isdigit()))
    assert items(retry_id) == {1, 2}
    status = json.loads(run(runner, "broadcast", "status", str(retry_id)).stdout)
    assert status["segment"] == "vip"


def test_a_rule_names_tags_and_values_spelled_any_way_they_are_stored(runner, app):
    """A rule folds its tags and values as users' are stored: NFC, lower case, Arabic yeh/kaf, ZWNJ kept."""
    create_users([1, 2, 3])
    ok(runner, "users", "tag", "add", "\u06a9\u062a\u0627\u0628\u200c\u062e\u0648\u0627\u0646", "--ids", "1,2")
    ok(runner, "users", "tag", "add", "\u00c9lite", "--ids", "3")
    ok(runner, "users", "field", "set", "city", "Caf\u00e9", "--ids", "1")
    spellings = {
        "reader": ("--tag-any", "\u0643\u062a\u0627\u0628\u200c\u062e\u0648\u0627\u0646", 2),  # Arabic kaf
        "elite": ("--tag-all", "E\u0301LITE", 1),  # É as E + a combining accent, upper case
        "cafe": ("--field", "city=Cafe\u0301", 1),  # é decomposed
        "not_cafe": ("--field", "city!=Cafe\u0301", 2),
    }
    for name, (option, value, users) in spellings.items():
        saved = run(runner, "segments", "save", name, option, value)
        assert saved.exit_code == 0, saved.output
        assert run(runner, "segments", "count", name).stdout.strip() == str(users), name


def test_clicks_of_a_broadcast_whose_clicks_were_not_counted_are_refused_saying_why(runner, app):
    """Made without PUBLIC_URL, its job view says "not counted": "did not click" would be everyone it reached."""
    from sqlalchemy import update

    from app.models import BroadcastJob

    seed()
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == JOB).values(links_tracked=False,
                                                                                 clicks_unique=0))
    db.session.commit()
    for option in ("--not-clicked", "--clicked"):
        result = run(runner, "segments", "save", "missed", option, str(JOB))
        assert result.exit_code == 2, result.output
        [line] = result.stderr.strip().splitlines()
        assert f"broadcast {JOB}'s clicks were not counted" in line and f"use --received {JOB}" in line
    assert segment_rows() == []
    assert run(runner, "segments", "save", "got_it", "--received", str(JOB)).exit_code == 0
