"""Statements a handled webhook update costs, reply included: what a host's per-hour query cap counts.

Counted with SQLAlchemy's cursor events on the app's engine and the
budget's, so COMMIT (one per handled update, a connection call rather
than a statement) is not in these numbers: the bounds below plus that
COMMIT are the figures bench/webhook_queries.py reads from MariaDB's own
count (docs/PERFORMANCE.md). The traffic fallback's look at cron (at most
every 30 s per process, app/web/fallback.py) is kept out of the counts.
"""
import time
from datetime import timedelta

import pytest
from sqlalchemy import event, update

from app.clock import utcnow
from app.extensions import db
from app.models import User
from app.models.user import CHANNEL_MEMBER, CHANNEL_UNKNOWN
from app.repository.budget.engine import budget_engine
from app.services import telegram_factory
from app.services.audience import tags, tap
from app.simulator.updates import callback_update, message_update
from app.telegram import call_pacing
from app.web import fallback
from tests.factories import create_user, get_user, post_update

# Per handled update, COMMIT aside: the claim, the one read (settings and the sender's row), what the
# handler writes (one upsert for /start; none for a message, nor for a subscribe press by a subscribed user),
# the reply's chat slot and its bot-wide slot.
START_MAX, MESSAGE_MAX, BUTTON_MAX = 5, 4, 4
TAP_MAX = 5
# A returning user's message after SEEN_EVERY: last_seen_at's UPDATE on top.
STALE_MESSAGE_MAX = 5
# With a main channel configured, a user whose membership is unknown is looked up once after commit
# (getChatMember, which books no slot): the status's UPDATE (and its own COMMIT).
CHANNEL_CHECK = 1
# A press that changes the choice writes it (one guarded UPDATE) and moves the opt-out tags (a DELETE, an INSERT).
OPT_CHANGE = 3


class Statements:
    """Count the statements run on the app's and the budget's engines."""

    def __init__(self):
        self.seen: list[str] = []
        self.engines = list({id(e): e for e in (db.engine, budget_engine(db.engine))}.values())

    def __call__(self, conn, cursor, statement, parameters, context, executemany):
        self.seen.append(statement)

    def __enter__(self):
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", self)
        return self

    def __exit__(self, *exc):
        for engine in self.engines:
            event.remove(engine, "before_cursor_execute", self)


@pytest.fixture(autouse=True)
def warm(client, monkeypatch):
    """A first update, so the process's one-time work (its clients, the database clock's reading) is not counted.

    Kept out of the counts too: the traffic fallback's look at cron (its own thread, every 30 s), and
    what a loaded machine's slow round trips and late wake-ups add: the lane's recheck of the 429 hold
    when a booking took over FREE_RECHECK_SECONDS (5 ms), a second booking when the thread woke over
    FREE_MAX_LATENESS of an interval after its slot, a reply's chat slot read and moved along when its
    bot-wide slot came over CHAT_SLIP_SECONDS (20 ms) after it. Those are timing rules of their own
    (tests/telegram); bench/webhook_queries.py counts them as they fall.
    """
    monkeypatch.setattr(fallback, "_next_check", [float("inf")])
    monkeypatch.setattr(telegram_factory, "FREE_RECHECK_SECONDS", 60.0)
    monkeypatch.setattr(telegram_factory, "FREE_MAX_LATENESS", None)
    monkeypatch.setattr(call_pacing, "CHAT_SLIP_SECONDS", 60.0)
    assert post_update(client, message_update(8100, "/start", update_id=990_000)).get_json()["outcome"] == "handled"
    # Past the warm-up reply's bot-wide slot: a reply that waits for one rechecks the 429 hold (the lane's rule).
    time.sleep(0.2)


def handled(client, update) -> list[str]:
    """POST one update; return the statements it cost, after checking it was handled."""
    with Statements() as counted:
        response = post_update(client, update)
    assert response.get_json()["outcome"] == "handled", response.get_data(as_text=True)
    return counted.seen


def listed(seen: list[str]) -> str:
    """The statements, one a line, for a failure's message."""
    return "\n".join(" ".join(statement.split())[:160] for statement in seen)


def replies_to(simulator, chat_id: int) -> int:
    return sum(1 for d in simulator.deliveries() if d.get("chat_id") == chat_id)


def test_a_new_users_start_costs_five_statements_and_a_commit(app, client, simulator):
    app.config["MAIN_CHANNEL_ID"] = None
    seen = handled(client, message_update(8101, "/start", update_id=990_001))
    assert len(seen) <= START_MAX, listed(seen)
    assert get_user(8101) is not None and replies_to(simulator, 8101) == 1
    assert not any("SAVEPOINT" in s.upper() for s in seen)


def test_a_new_users_start_with_the_channel_check_adds_only_the_check(client, simulator):
    seen = handled(client, message_update(8107, "/start", update_id=990_007))
    assert len(seen) <= START_MAX + CHANNEL_CHECK, listed(seen)
    assert get_user(8107).main_channel_status != CHANNEL_UNKNOWN and replies_to(simulator, 8107) == 1


def test_a_repeat_start_costs_five_statements_and_a_commit(client, simulator):
    create_user(8102, main_channel_status=CHANNEL_MEMBER)
    db.session.execute(update(User).where(User.id == 8102).values(is_blocked=True, blocked_at=utcnow()))
    db.session.commit()
    seen = handled(client, message_update(8102, "/start", update_id=990_002))
    assert len(seen) <= START_MAX, listed(seen)
    assert get_user(8102).is_blocked is False and replies_to(simulator, 8102) == 1


def test_a_returning_users_message_costs_four_statements_and_a_commit(client, simulator):
    create_user(8103)
    seen = handled(client, message_update(8103, "hello there", update_id=990_003))
    assert len(seen) <= MESSAGE_MAX, listed(seen)
    assert replies_to(simulator, 8103) == 1


def test_a_stale_users_message_adds_only_last_seen(client, simulator):
    create_user(8104)
    long_ago = utcnow() - timedelta(days=3)
    db.session.execute(update(User).where(User.id == 8104).values(last_seen_at=long_ago))
    db.session.commit()
    seen = handled(client, message_update(8104, "hello there", update_id=990_004))
    assert len(seen) <= STALE_MESSAGE_MAX, listed(seen)
    assert get_user(8104).last_seen_at > long_ago + timedelta(days=2)


def test_a_button_press_costs_four_statements_and_a_commit(client, simulator):
    create_user(8105)
    seen = handled(client, callback_update(8105, "u.sub", 8105, 1, update_id=990_005))
    assert len(seen) <= BUTTON_MAX, listed(seen)
    assert get_user(8105).opted_out_at is None and replies_to(simulator, 8105) == 1


def test_a_press_that_changes_the_choice_adds_only_its_tags(client, simulator):
    create_user(8108)
    db.session.execute(update(User).where(User.id == 8108).values(opted_out_at=utcnow()))
    db.session.commit()
    seen = handled(client, callback_update(8108, "u.sub", 8108, 1, update_id=990_008))
    assert len(seen) <= BUTTON_MAX + OPT_CHANGE, listed(seen)
    assert get_user(8108).opted_out_at is None and replies_to(simulator, 8108) == 1


def test_a_tap_button_press_costs_five_statements_and_a_commit(client, simulator, runner):
    create_user(8109)
    created = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "hi", "--tap-button", "🎁",
                                  "--tap-tag", "Festival"])
    job_id = int(created.output.strip())
    runner.invoke(args=["broadcast", "pump", "--seconds", "5"])
    [copy] = [d for d in simulator.deliveries("sendMessage", 8109) if d["text"] == "hi"]
    # No reply (the press is answered, which books no slot): the claim, the one read, the job and the
    # presser's copy in one SELECT, the tag's INSERT, the job's counters.
    seen = handled(client, callback_update(8109, tap.callback_data(job_id), 8109, copy["message_id"],
                                           update_id=990_009))
    assert len(seen) <= TAP_MAX, listed(seen)
    assert tags.tags_of(8109)[0]["tag"] == "festival"


def test_a_replayed_update_costs_its_refused_insert_alone(client, simulator):
    update_ = message_update(8106, "/start", update_id=990_006)
    handled(client, update_)
    with Statements() as counted:
        assert post_update(client, update_).get_json()["outcome"] == "duplicate"
    assert len(counted.seen) == 1, counted.seen
