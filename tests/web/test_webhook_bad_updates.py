"""A bad update is not an outage: strict ids, data errors answered 200 once, only a lost database is 503."""
import sqlite3
import threading

import pytest
from sqlalchemy import event, text

from app import create_app
from app.bot import router, start
from app.extensions import db
from app.models import AdminState, User
from app.simulator.updates import callback_update, chat_member_update, message_update, my_chat_member_update
from tests import conftest
from tests.conftest import ADMIN_ID, MAIN_CHANNEL_ID, PUMP_TOKEN, TOKEN, WEBHOOK_SECRET
from tests.dbutil import is_mysql
from tests.factories import create_user, get_user, post_update, processed_ids

BAD_USER_IDS = [None, True, False, 1001.0, 1.5, 0, -5, 2**70, 2**63, "1001", [1001], {"id": 1}]
BAD_IDS = pytest.mark.parametrize("bad", BAD_USER_IDS, ids=repr)
ON_MYSQL = is_mysql(conftest.base_test_url("/tmp"))


def user_ids() -> set[int]:
    """Return every stored user id."""
    db.session.expire_all()
    ids = set(db.session.execute(db.select(User.id)).scalars())
    db.session.commit()
    return ids


def admin_state_ids() -> set[int]:
    db.session.expire_all()
    ids = set(db.session.execute(db.select(AdminState.admin_id)).scalars())
    db.session.commit()
    return ids


def answered(response, status=200) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_data(as_text=True)
    assert all(secret not in body for secret in (TOKEN, WEBHOOK_SECRET, PUMP_TOKEN))
    return response.get_json()


def assert_untouched(simulator):
    """Nothing stored, nothing sent."""
    assert user_ids() == set()
    assert admin_state_ids() == set()
    assert simulator.deliveries() == []
    assert simulator.callback_answers() == []


@BAD_IDS
def test_start_with_a_bad_sender_id_is_200_and_ignored(client, simulator, bad):
    update = message_update(7101, "/start", update_id=880_001)
    update["message"]["from"]["id"] = bad
    update["message"]["chat"]["id"] = bad
    for _ in range(2):  # Telegram's redelivery (or a replay) changes nothing either
        assert answered(post_update(client, update)) == {"ok": True, "outcome": "ignored"}
    assert_untouched(simulator)


@BAD_IDS
def test_a_bad_sender_id_with_a_good_chat_id_is_ignored(client, simulator, bad):
    update = message_update(7102, "/start", update_id=880_002)
    update["message"]["from"]["id"] = bad
    assert answered(post_update(client, update))["outcome"] == "ignored"
    assert_untouched(simulator)


@pytest.mark.parametrize("bad", [True, 1001.0, 0, 1.5, 2**70, None, "7103"], ids=repr)
def test_a_bad_chat_id_is_ignored(client, simulator, bad):
    update = message_update(7103, "/start", update_id=880_003)
    update["message"]["chat"]["id"] = bad
    assert answered(post_update(client, update))["outcome"] == "ignored"
    assert_untouched(simulator)


def test_true_does_not_become_user_1(client, simulator):
    update = message_update(7104, "/start", update_id=880_004)
    update["message"]["from"]["id"] = update["message"]["chat"]["id"] = True
    answered(post_update(client, update))
    assert get_user(1) is None


@pytest.mark.parametrize("admin_id", [float(ADMIN_ID), True, str(ADMIN_ID)], ids=repr)
def test_a_lookalike_admin_id_is_not_an_admin(client, simulator, admin_id):
    for update in (message_update(ADMIN_ID, "/broadcast", update_id=880_010),
                   message_update(ADMIN_ID, "/settings", update_id=880_011)):
        update["message"]["from"]["id"] = update["message"]["chat"]["id"] = admin_id
        assert answered(post_update(client, update))["outcome"] == "ignored"
    press = callback_update(ADMIN_ID, "w.continue:1", ADMIN_ID, 5, update_id=880_012)
    press["callback_query"]["from"]["id"] = admin_id
    assert answered(post_update(client, press))["outcome"] == "ignored"
    assert_untouched(simulator)


def test_the_real_admin_id_still_works(client, simulator):
    answered(post_update(client, message_update(ADMIN_ID, "/broadcast", update_id=880_013)))
    assert admin_state_ids() == {ADMIN_ID}


@pytest.mark.parametrize("bad", [True, 7105.0, 0, -7105, 2**70], ids=repr)
def test_membership_updates_with_bad_ids_are_ignored(client, simulator, bad):
    create_user(7105)
    kicked = my_chat_member_update(7105, "member", "kicked", update_id=880_020)
    kicked["my_chat_member"]["from"]["id"] = bad
    joined = chat_member_update(MAIN_CHANNEL_ID, 7105, "left", "member", update_id=880_021)
    joined["chat_member"]["new_chat_member"]["user"]["id"] = bad
    joined["chat_member"]["from"]["id"] = bad
    for update in (kicked, joined):
        assert answered(post_update(client, update))["outcome"] == "ignored"
    user = get_user(7105)
    assert (user.is_blocked, user.main_channel_status) == (False, "unknown")
    assert user_ids() == {7105}


def test_group_chat_ids_may_be_negative(client, simulator):
    """Chat ids of groups and channels are negative: only user ids must be positive."""
    create_user(7106)
    update = chat_member_update(MAIN_CHANNEL_ID, 7106, "left", "member", update_id=880_022)
    assert answered(post_update(client, update))["outcome"] == "handled"
    assert get_user(7106).main_channel_status == "member"


def test_largest_bigint_user_id_is_accepted(client, simulator):
    biggest = 2**63 - 1
    assert answered(post_update(client, message_update(biggest, "/start", update_id=880_023)))["outcome"] == "handled"
    assert user_ids() == {biggest}


# -- a data error caused by one update: 200, recorded once, logged -----------------------------------

@pytest.mark.parametrize("statement", [
    "INSERT INTO users (first_name) VALUES ('no id')",  # MariaDB 1364 (OperationalError); SQLite NOT NULL
    pytest.param("INSERT INTO users (id, first_name, started_at, last_seen_at) VALUES ('x', 'x', 'x', 'x')",
                 marks=pytest.mark.skipif(not ON_MYSQL, reason="SQLite stores any value in any column")),  # 1366
    "INSERT INTO processed_updates (update_id, processed_at) VALUES (NULL, NULL)",  # 1048 / NOT NULL
], ids=["no-default", "bad-value", "null"])
def test_a_data_error_from_one_update_is_200_recorded_and_logged(client, simulator, monkeypatch, caplog,
                                                                 statement):
    def handler(ctx):
        start.on_start(ctx)
        db.session.execute(text(statement))

    monkeypatch.setitem(router.COMMANDS, "start", handler)
    update = message_update(7110, "/start", update_id=880_030)
    assert answered(post_update(client, update)) == {"ok": True, "outcome": "error"}
    assert processed_ids() == {880_030}
    assert user_ids() == set()  # the handler's effects were rolled back
    assert simulator.deliveries() == []
    [line] = [r for r in caplog.records if "recorded as processed" in r.getMessage()]
    assert "880030" in line.getMessage() and line.exc_info is None  # one line, no traceback
    monkeypatch.undo()
    # Telegram's redelivery (and any replay) is acknowledged and not processed again.
    assert answered(post_update(client, update)) == {"ok": True, "outcome": "duplicate"}
    assert user_ids() == set()


# -- only a lost database is an outage -----------------------------------------------------------------

@pytest.mark.skipif(not ON_MYSQL, reason="KILL <connection> needs MariaDB/MySQL")
def test_a_connection_lost_mid_update_is_503_and_records_nothing(client, simulator, monkeypatch):
    def lose_the_connection(ctx):
        start.on_start(ctx)
        own = db.session.execute(text("SELECT CONNECTION_ID()")).scalar()
        with db.engine.connect() as other:
            other.execute(text(f"KILL {int(own)}"))
        db.session.execute(text("SELECT 1"))  # the server has gone away

    monkeypatch.setitem(router.COMMANDS, "start", lose_the_connection)
    update = message_update(7120, "/start", update_id=880_040)
    assert answered(post_update(client, update), 503) == {"ok": False, "error": "database unavailable, retry later"}
    db.session.remove()
    assert processed_ids() == set()
    assert user_ids() == set()
    assert simulator.deliveries() == []
    monkeypatch.undo()
    assert answered(post_update(client, update))["outcome"] == "handled"  # the redelivery is processed
    assert user_ids() == {7120}


@pytest.mark.skipif(ON_MYSQL, reason="a locked database file is SQLite's outage")
def test_a_locked_sqlite_database_is_503_and_records_nothing(app, database_url, simulator):
    locked = create_app(conftest.app_config(database_url, simulator.base_url))
    with locked.app_context():
        # Wait 0.2 s for the lock instead of the app's 30 s (set after the app's own connect hook).
        event.listen(db.engine, "connect", lambda conn, _record: conn.execute("PRAGMA busy_timeout=200"))
    holder = sqlite3.connect(database_url.removeprefix("sqlite:///"), timeout=5, check_same_thread=False)
    update = message_update(7121, "/start", update_id=880_041)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with locked.app_context():
            response = post_update(locked.test_client(), update)
            db.engine.dispose()
    finally:
        holder.rollback()
        holder.close()
    assert answered(response, 503)["ok"] is False
    assert processed_ids() == set()
    assert user_ids() == set()
    assert simulator.deliveries() == []


@pytest.mark.parametrize("dead_url", ["sqlite:////nonexistent-dir/nothing/db.sqlite3",
                                      "mysql+pymysql://root@127.0.0.1:9/nothing?charset=utf8mb4"])
def test_an_unreachable_database_is_503_even_for_a_bad_update(app, simulator, dead_url):
    """Whether an update is good is decided without the database; a dead database still gets 503 for good ones."""
    dead = create_app(conftest.app_config(dead_url, simulator.base_url))
    with dead.app_context():
        good = post_update(dead.test_client(), message_update(7122, "/start", update_id=880_042))
        bad = message_update(7123, "/start", update_id=880_043)
        bad["message"]["from"]["id"] = None
        ignored = post_update(dead.test_client(), bad)
    assert answered(good, 503)["ok"] is False
    assert answered(ignored)["outcome"] == "ignored"
    assert processed_ids() == set()


def test_concurrent_copies_of_a_data_error_record_it_once(app, simulator, monkeypatch):
    """Two deliveries of one poisoned update at once: both answered 200, one processed_updates row."""
    barrier = threading.Barrier(2)

    def handler(ctx):
        start.on_start(ctx)
        db.session.execute(text("INSERT INTO users (first_name) VALUES ('no id')"))

    monkeypatch.setitem(router.COMMANDS, "start", handler)
    update = message_update(7124, "/start", update_id=880_044)
    statuses = []

    def deliver():
        barrier.wait(5)
        with app.app_context():
            statuses.append(post_update(app.test_client(), update).status_code)
            db.session.remove()

    threads = [threading.Thread(target=deliver) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert statuses == [200, 200]
    assert processed_ids() == {880_044}
    assert user_ids() == set()
