"""The tap button's lock order on MariaDB: users, then user_tags, then the job row, as the unsubscribe button does.

The tag's INSERT checks its foreign key with a shared lock on the presser's
users row. The unsubscribe button under the same copy holds that row (it
opts the user out) and then counts on the job row. A tap that locked the
job row first would close a cycle with it; in this order it waits, then runs.
"""
from __future__ import annotations

from sqlalchemy import text

from app.services.audience import tap
from app.services.broadcast.jobs import creation
from tests.audience.helpers import tags_of
from tests.broadcast.helpers import create_users, reload
from tests.reliability import test_deadlocks as dl

raw_engine = dl.raw_engine  # the fixture: a second engine on the test database (MariaDB only)


@dl.mysql_only
def test_a_tap_while_the_same_user_unsubscribes_under_the_same_copy_waits_and_never_deadlocks(app, raw_engine):
    [user] = create_users(1)
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "جشنواره!"},
                              optout_button=True, tap={"text": "🎁", "tag": "festival"})
    # The unsubscribe button's transaction: the user row first (opted out), then the job's counter.
    other = dl.Opposite(raw_engine, [f"UPDATE users SET opted_out_at = NOW() WHERE id = {user}"],
                        f"UPDATE broadcast_jobs SET unsubscribed_count = unsubscribed_count + 1 WHERE id = {job.id}")
    other.start()
    assert other.holding.wait(dl.WAIT)
    mac = tap.callback_data(job.id).rsplit(".", 1)[1]
    result = dl._run_until_blocked_then_close(app, raw_engine, other, lambda: tap.press(job.id, mac, user),
                                              "INSERT%user_tags%")
    assert result == {"value": (True, None)}  # no deadlock victim: the press waited for the other, then ran
    row = reload(job.id)
    assert (row.tap_presses, row.tap_tagged, row.unsubscribed_count) == (1, 1, 1)
    assert tags_of(user) == {"festival"}
    with raw_engine.connect() as conn:
        assert conn.execute(text(f"SELECT opted_out_at IS NOT NULL FROM users WHERE id = {user}")).scalar() == 1
