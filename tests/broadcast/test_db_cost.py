"""What a broadcast costs the database beyond its sends: progress texts and the outbox's reads of a busy chat."""
from __future__ import annotations

import threading
import time

import pytest

from app.repository.budget import chats as chats_repo
from app.repository.budget import lanes as lanes_repo
from app.repository.budget.engine import NO_LIMIT_US
from app.services.broadcast.jobs import control
from app.services.broadcast.reporting import progress_ticks
from app.services.broadcast.reporting.notifier import Notifier
from app.services.broadcast.sending.drain import pump
from app.services.budget.chats import READY_HINT_SECONDS
from tests.broadcast.helpers import assert_consistent, create_text_job, create_users, engine_settings

USERS = 60


def progress_job(simulator, settings: dict) -> int:
    """Create a job with a live progress message in the admin's chat; return its id."""
    create_users(USERS)
    job = create_text_job(settings=settings).id
    control.set_progress_message(job, 1001, simulator.add_message(1001, text="progress"))
    return job


def test_a_progress_text_is_built_at_most_once_a_second_however_fast_copies_are_recorded(
        app, simulator, monkeypatch):
    settings = engine_settings(broadcast_rate_per_second=28, broadcast_progress_every=1)
    job = progress_job(simulator, settings)
    built = []
    real = Notifier.progress
    monkeypatch.setattr(Notifier, "progress", lambda self, *a, **kw: built.append(time.monotonic()) or
                        real(self, *a, **kw))
    started = time.monotonic()
    while pump(job, 20, settings=settings).stop != "done":
        pass
    seconds = time.monotonic() - started
    assert assert_consistent(job, simulator) == {"sent": USERS}
    # One text a second while it ran (and the last one when it stops), not one per copy recorded.
    assert 1 <= len(built) <= seconds + 2, (len(built), round(seconds, 1))
    gaps = [b - a for a, b in zip(built, built[1:-1], strict=False)]
    assert all(gap >= 0.95 for gap in gaps), gaps


def test_the_outbox_waiting_on_the_admins_chat_reads_its_pace_at_most_twice_a_second(
        app, simulator, monkeypatch):
    # A progress text per copy recorded: the outbox's worker wakes for each and looks at the admin's chat.
    monkeypatch.setattr(progress_ticks, "PROGRESS_FLOOR_SECONDS", 0.0)
    settings = engine_settings(broadcast_rate_per_second=28, broadcast_progress_every=1)
    job = progress_job(simulator, settings)
    reads = []
    real = chats_repo.chat_next_us
    monkeypatch.setattr(chats_repo, "chat_next_us", lambda engine, chat: reads.append(chat) or real(engine, chat))
    started = time.monotonic()
    while pump(job, 20, settings=settings).stop != "done":
        pass
    seconds = time.monotonic() - started
    admin_reads = reads.count(1001)
    # A hint every READY_HINT_SECONDS, and a fresh read after each of this process's own edits of the chat
    # (about one a second).
    assert admin_reads <= (1 / READY_HINT_SECONDS + 1) * seconds + 5, (admin_reads, round(seconds, 1))


def test_under_a_hosts_query_cap_a_broadcast_sends_no_faster_than_the_cap_allows(app, simulator):
    from app.services.broadcast.jobs.estimate import send_rate

    # 20,000 statements an hour, 80 % for broadcasts: 4.4 a second, 4 of them the pump's own per second,
    # the rest at 0.13 a message in blocks of 100: 3.4 messages a second, free and paid alike.
    settings = engine_settings(db_statements_per_hour=20_000)
    rate = send_rate(settings, False)
    assert rate == pytest.approx(3.42, abs=0.01) and send_rate(settings, True) == rate
    create_users(8)
    job = create_text_job(settings=settings).id
    while pump(job, 20, settings=settings).stop != "done":
        pass
    assert assert_consistent(job, simulator) == {"sent": 8}
    times = sorted(d["t"] for d in simulator.deliveries("sendMessage") if d["chat_id"] != 1001)
    # The pump's own limiter starts with one slot of burst credit (and, like any token bucket, lets a
    # send follow a late one a little sooner): the cap's promise is the sustained rate after that slot.
    sustained = (len(times) - 2) / (times[-1] - times[1])
    assert len(times) == 8 and sustained <= rate * 1.05, (round(sustained, 3), times)


# Statements one pump call costs whatever the job's size: its lease, the job's reads, completion, the summary.
FIXED_PER_RUN = 40
# Statements one block costs at most, whatever its size: its mark, its bookings (slots, chats), the fence
# with the counters and outcomes, the commits (about 8); a block whose send woke late also puts it back to
# pending, renews the lease and reads the cursor again (9-10 a block in all at load 4-6).
PER_BLOCK = 12


def blocks_in(sql: list[str]) -> list[str]:
    """Return the statements that mark a block of items 'sending' (one UPDATE a block)."""
    return [s for s in sql if s.lstrip().startswith("UPDATE broadcast_job_items SET status")
            and "WHERE id IN" in s and "sent_at" not in s]


def assert_cost_per_block(sql: list[str], users: int, per_block: int = PER_BLOCK) -> None:
    """The database's cost grows with the pump's blocks, never with its copies.

    How many blocks a run books is a matter of time (a send whose thread wakes late goes back to
    pending and goes again in a block of its own; a CPU-starved pump books the busy size), so the
    bound counts them: on a quiet machine 120 copies at 28/s are 6 blocks and about 75 statements,
    0.4 a copy at scale (docs/PERFORMANCE.md, `bench.throughput`); a statement per copy is 120 more.
    """
    blocks = len(blocks_in(sql))
    assert 1 <= blocks <= users, (blocks, users)
    assert len(sql) <= FIXED_PER_RUN + per_block * blocks, (len(sql), blocks, users)


def _results_picture() -> bool:
    """Tell whether this statement comes from the results picture's thread (reporting/picture.py).

    The picture is drawn once a job ends, off the pump, whenever its thread gets to it: a cost per job
    (about ten reads), not the engine's per copy, and counting it would make these counts depend on timing.
    """
    return threading.current_thread().name.startswith("results-picture")


class Statements:
    """Every statement the app's and the budget's engines send, commits included, while entered."""

    def __init__(self):
        from sqlalchemy import event

        from app.extensions import db
        from app.repository.budget.engine import budget_engine

        self.event, self.engines = event, list(dict.fromkeys([db.engine, budget_engine(db.engine)]))
        self.sql: list[str] = []

    def _statement(self, conn, cursor, statement, *args):
        if not _results_picture():
            self.sql.append(statement)

    def _commit(self, conn):
        if not _results_picture():
            self.sql.append("COMMIT")

    def __enter__(self) -> Statements:
        for engine in self.engines:
            self.event.listen(engine, "before_cursor_execute", self._statement)
            self.event.listen(engine, "commit", self._commit)
        return self

    def __exit__(self, *exc) -> None:
        for engine in self.engines:
            self.event.remove(engine, "before_cursor_execute", self._statement)
            self.event.remove(engine, "commit", self._commit)


def test_a_broadcast_at_the_cap_costs_the_database_about_a_block_a_second_not_a_statement_a_copy(app, simulator):
    # 120 copies at 28/s: about five blocks of a second. Each block is one transaction (fence with the
    # counters, outcomes, the next block's mark, its commit) and two bookings (slots, chats); the
    # progress edits and cron's reads add a few a second. Per copy there is nothing but an id in a list.
    users = 120
    create_users(users)
    settings = engine_settings(broadcast_rate_per_second=28)
    job = create_text_job(settings=settings).id
    with Statements() as counted:
        while pump(job, 20, settings=settings).stop != "done":
            pass
    assert assert_consistent(job, simulator) == {"sent": users}
    # A pump call's own cost (its lease, the job's reads, completion, the summary) is about 30 whatever
    # the job's size; each block about 8 (65-79 in all on an idle machine); a statement per copy would be
    # 120 more.
    assert_cost_per_block(counted.sql, users)
    hold_reads = [s for s in counted.sql if "hold_until_us" in s and s.lstrip().upper().startswith("SELECT")]
    assert len(hold_reads) <= 3, "a pump alone on the bot read the shared 429 hold before its copies"


def test_a_pump_started_right_after_two_processes_replied_is_alone_once_their_replies_are_answered(app, simulator):
    # Two web workers answered a moment before the pump started (their windows still open): once those
    # end, the pump is the bot's only sender: a second's blocks, no read of the hold before each copy.
    from app.extensions import db
    from app.models.telegram_budget import FREE
    from app.repository.budget.engine import budget_engine

    users = 240  # long enough that the replies' window is a small part of it
    create_users(users)
    settings = engine_settings(broadcast_rate_per_second=28)
    job = create_text_job(settings=settings).id
    engine = budget_engine(db.engine)
    for worker in (7, 8):  # each a reply whose call may stay unanswered 0.2 s
        assert lanes_repo.reserve(engine, FREE, 1, 10_000, NO_LIMIT_US, me=worker, busy_us=200_000) is not None
    with Statements() as counted:
        while pump(job, 20, settings=settings).stop != "done":
            pass
    assert assert_consistent(job, simulator) == {"sent": users}
    hold_reads = [s for s in counted.sql if "hold_until_us" in s and s.lstrip().upper().startswith("SELECT")]
    # The copies of the replies' windows read it (about 0.2 s of them), not the whole broadcast's 240.
    assert len(hold_reads) <= 15, (len(hold_reads), users)
    assert len(counted.sql) <= FIXED_PER_RUN + 0.5 * users, (len(counted.sql), users)


def test_while_another_process_books_the_bot_each_copy_reads_the_shared_hold(app, simulator):
    # A reply process's calls may draw a 429 at any moment: a hold it records must stop this pump's next copy.
    from app.extensions import db
    from app.models.telegram_budget import FREE
    from app.repository.budget.engine import budget_engine

    users = 40
    create_users(users)
    settings = engine_settings(broadcast_rate_per_second=28)
    job = create_text_job(settings=settings).id
    # Another process books one slot whose call may stay unanswered for a minute.
    assert lanes_repo.reserve(budget_engine(db.engine), FREE, 1, 10_000, NO_LIMIT_US, me=7,
                               busy_us=60_000_000) is not None
    with Statements() as counted:
        while pump(job, 20, settings=settings).stop != "done":
            pass
    assert assert_consistent(job, simulator) == {"sent": users}
    hold_reads = [s for s in counted.sql if "hold_until_us" in s and s.lstrip().upper().startswith("SELECT")]
    assert len(hold_reads) >= users * 0.9, (len(hold_reads), users)


def test_the_daily_cap_and_quiet_hours_cost_a_read_per_block_not_per_copy(app, simulator):
    # The same broadcast with the cap on (a read per block of its recipients' copies today) and a quiet
    # window that does not cover now (arithmetic on the lease's clock): still far under half a statement a copy.
    from datetime import timedelta

    from sqlalchemy import update

    from app.extensions import db
    from app.models import BroadcastJob, BroadcastJobItem
    from app.repository.db_clock import db_utcnow
    from app.services.broadcast.schedule.quiet_hours import tehran_clock

    users = 120
    create_users(users)
    now = db_utcnow()
    settings = engine_settings(broadcast_rate_per_second=28, max_broadcasts_per_user_per_day=2,
                               quiet_hours_start=tehran_clock(now + timedelta(hours=2)),
                               quiet_hours_end=tehran_clock(now + timedelta(hours=3)))
    # An earlier broadcast delivered today: the cap has copies to count (one each, under the cap of 2).
    earlier = create_text_job(settings=settings).id
    db.session.execute(update(BroadcastJobItem).where(BroadcastJobItem.job_id == earlier)
                       .values(status="sent", sent_at=now))
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == earlier)
                       .values(status="completed", active_slot=None, finished_at=now))
    db.session.commit()
    job = create_text_job(settings=settings).id
    with Statements() as counted:
        while pump(job, 20, settings=settings).stop != "done":
            pass
    assert assert_consistent(job, simulator) == {"sent": users}
    cap_reads = [s for s in counted.sql if "GROUP BY broadcast_job_items.user_id" in s]
    jobs_reads = [s for s in counted.sql if s.lstrip().startswith("SELECT broadcast_jobs.id")
                  and "broadcast_jobs.finished_at IS NULL" in s]
    # A block is marked 'sending' by one UPDATE: the cap is read once for each (a loaded machine makes more,
    # smaller blocks, so the bound is the pump's own block count, not a fixed number).
    blocks = blocks_in(counted.sql)
    print(f"\nstatements with the cap on: {len(counted.sql)} for {users} copies "
          f"({len(counted.sql) / users:.2f} a copy, {len(cap_reads)} cap reads, {len(blocks)} blocks)")
    assert 1 <= len(cap_reads) <= len(blocks) + 1, (len(cap_reads), len(blocks))
    assert len(jobs_reads) == len(cap_reads), (len(jobs_reads), len(cap_reads))  # the day's jobs, then their copies
    assert_cost_per_block(counted.sql, users, PER_BLOCK + 2)  # and those two reads a block
