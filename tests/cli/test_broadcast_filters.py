"""`flask broadcast create` with audience filters and send options, pumped against the simulator."""
import json
from datetime import timedelta

import pytest
from sqlalchemy import insert

from app.clock import utcnow
from app.extensions import db
from app.models import User
from tests.broadcast.helpers import reload
from tests.conftest import ADMIN_ID

LANGS = {7_100_000_001: "en", 7_100_000_002: "en-GB", 7_100_000_003: "fa", 7_100_000_004: None,
         7_100_000_005: "ru"}


def seed(seen_days: dict[int, int] | None = None):
    """Insert the users of LANGS, seen today unless seen_days says otherwise."""
    now = utcnow()
    seen_days = seen_days or {}
    db.session.execute(insert(User), [
        dict(id=i, first_name="u", language_code=code, started_at=now - timedelta(days=seen_days.get(i, 0)),
             last_seen_at=now - timedelta(days=seen_days.get(i, 0))) for i, code in LANGS.items()
    ])
    db.session.commit()


def recipients_copies(simulator) -> list[dict]:
    """Return the broadcast's sendMessage deliveries (the admins' final summaries left out)."""
    return [d for d in simulator.deliveries("sendMessage") if d["chat_id"] != ADMIN_ID]


def create_and_pump(runner, *args) -> int:
    """Create a text job with args, drain it with `broadcast pump`, return its id."""
    created = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "hello", *args])
    assert created.exit_code == 0, created.output
    pumped = runner.invoke(args=["broadcast", "pump", "--seconds", "5"])
    assert pumped.exit_code == 0, pumped.output
    assert json.loads(pumped.stdout)["jobs"][0]["job"]["status"] == "completed"
    return int(created.stdout)


def test_lang_en_reaches_only_english_users_silently_and_protected(runner, simulator):
    seed()
    job = reload(create_and_pump(runner, "--lang", "en", "--silent", "--protect"))
    assert (job.total_count, job.sent_count, job.audience_langs, job.silent, job.protect) == (2, 2, "en", True, True)
    sent = recipients_copies(simulator)
    assert sorted(d["chat_id"] for d in sent) == [7_100_000_001, 7_100_000_002]
    assert all(d["disable_notification"] and d["protect_content"] for d in sent)
    status = json.loads(runner.invoke(args=["broadcast", "status", str(job.id)]).stdout)
    assert {k: status[k] for k in ("langs", "active_days", "joined_days", "silent", "protect")} == {
        "langs": ["en"], "active_days": None, "joined_days": None, "silent": True, "protect": True}


@pytest.mark.parametrize("option", ["--silent", "--protect"])
def test_each_send_option_alone_sets_only_itself(runner, simulator, option):
    seed()
    job = reload(create_and_pump(runner, option))
    assert (job.silent, job.protect) == (option == "--silent", option == "--protect")
    sent = recipients_copies(simulator)
    assert len(sent) == 5
    assert all(bool(d["disable_notification"]) == job.silent and bool(d["protect_content"]) == job.protect
               for d in sent)


def test_repeated_lang_and_days_filters(runner, simulator):
    seed({7_100_000_004: 40, 7_100_000_005: 3})
    job = reload(create_and_pump(runner, "--lang", "fa", "--lang", "other", "--active-days", "30"))
    assert (job.audience_langs, job.audience_active_days) == ("fa,other", 30)
    sent = recipients_copies(simulator)
    assert sorted(d["chat_id"] for d in sent) == [7_100_000_003, 7_100_000_005]
    # Without the options, nothing is silent or protected.
    assert not any(d["disable_notification"] or d["protect_content"] for d in sent)
    recent = reload(create_and_pump(runner, "--joined-days", "7"))
    assert (recent.audience_joined_days, recent.total_count) == (7, 4)


def test_filters_that_leave_nobody_exit_2(runner, simulator):
    seed({7_100_000_003: 10})  # the only Persian user started ten days ago
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "x", "--lang", "fa",
                                 "--joined-days", "7"])
    assert result.exit_code == 2 and "has no users after its filters" in result.output, result.output
    assert simulator.deliveries() == []


@pytest.mark.parametrize("args, message", [
    (["--lang", "de"], "'de' is not one of"),
    (["--active-days", "0"], "0 is not in the range"),
    (["--joined-days", "x"], "is not a valid integer"),
])
def test_bad_filter_options(runner, args, message):
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "x", *args])
    assert result.exit_code == 2 and message in result.output, result.output


def test_member_audiences_need_a_main_channel(app, runner, monkeypatch):
    seed()
    monkeypatch.setitem(app.config, "MAIN_CHANNEL_ID", None)
    for audience in ("members", "non_members"):
        result = runner.invoke(args=["broadcast", "create", "--audience", audience, "--text", "x"])
        assert result.exit_code == 2 and "needs MAIN_CHANNEL_ID" in result.output, result.output
