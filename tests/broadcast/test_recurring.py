"""Recurring broadcasts on the real database: each occurrence its own job, made once, missed ones as the admin chose."""
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select, update

from app.extensions import db
from app.models import BroadcastJob, RecurringBroadcast, RecurringOccurrence
from app.services import audit
from app.services.broadcast.jobs.draft import Draft
from app.services.broadcast.schedule import recurring, recurring_series
from app.services.broadcast.schedule.recurrence import RuleError
from app.services.broadcast.sending.drain import pump_all
from tests.broadcast.helpers import BASE_ID, assert_consistent, at_once, create_users, engine_settings, reload

FAST = engine_settings(broadcast_rate_per_second=30)
DRAFT = Draft(content={"type": "text", "text": "هفتگی 📣"}).with_target(__import__(
    "app.models.audience", fromlist=["Audience"]).Audience("all"))
# A Saturday 10:00 in Tehran (06:30 UTC).
SAT_10 = datetime(2026, 12, 26, 6, 30)


def make(rule="daily 09:00", *, if_missed="send", count=None, until=None, next_at=SAT_10) -> int:
    """Create a series (its first occurrence from the real clock), then put its next occurrence at next_at."""
    row = recurring_series.create(DRAFT, rule, until=until, count=count, if_missed=if_missed, created_by=1001,
                                  lang="en", actor=audit.ACTOR_CLI)
    if next_at is not None:
        db.session.execute(update(RecurringBroadcast).where(RecurringBroadcast.id == row.id).values(next_at=next_at))
        db.session.commit()
    return row.id


def series(series_id) -> RecurringBroadcast:
    db.session.expire_all()
    row = db.session.get(RecurringBroadcast, series_id)
    db.session.commit()
    return row


def occurrences(series_id) -> list[tuple[datetime, str, int | None]]:
    rows = db.session.execute(select(RecurringOccurrence.occurs_at, RecurringOccurrence.outcome,
                                     RecurringOccurrence.job_id).where(RecurringOccurrence.recurring_id == series_id)
                              .order_by(RecurringOccurrence.occurs_at)).all()
    db.session.commit()
    return [tuple(r) for r in rows]


def jobs() -> list[BroadcastJob]:
    db.session.expire_all()
    found = list(db.session.execute(select(BroadcastJob).order_by(BroadcastJob.id)).scalars())
    db.session.commit()
    return found


def test_an_occurrence_makes_its_job_on_time_and_not_before(app, simulator):
    create_users(3)
    sid = make("daily 10:00")
    assert recurring.release_due(FAST, now=SAT_10 - timedelta(seconds=1)) == []
    assert jobs() == []
    [job_id] = recurring.release_due(FAST, now=SAT_10 + timedelta(seconds=2))
    job = reload(job_id)
    assert (job.status, job.total_count, job.text, job.paid) == ("running", 3, "هفتگی 📣", False)
    assert occurrences(sid) == [(SAT_10, "made", job_id)]
    row = series(sid)
    assert (row.next_at, row.occurrences, row.made_count, row.status) == (SAT_10 + timedelta(days=1), 1, 1, "active")
    pump_all(10, settings=FAST)
    assert_consistent(job_id, simulator)
    assert sorted(d["chat_id"] for d in simulator.deliveries("sendMessage") if d["chat_id"] >= BASE_ID) == [
        BASE_ID, BASE_ID + 1, BASE_ID + 2]
    # The next day's occurrence is a job of its own, with its own ledger.
    [second] = recurring.release_due(FAST, now=SAT_10 + timedelta(days=1, seconds=1))
    assert second != job_id and reload(second).total_count == 3


def test_two_cron_calls_at_once_make_exactly_one_job(app):
    create_users(2)
    sid = make("daily 10:00")
    now = SAT_10 + timedelta(seconds=1)
    results = at_once(app, lambda: recurring.release_due(FAST, now=now), 4)
    assert sorted(len(r) for r in results) == [0, 0, 0, 1]
    assert len(jobs()) == 1 and [o[1] for o in occurrences(sid)] == ["made"]
    assert series(sid).occurrences == 1


def test_a_concurrent_caller_that_lost_the_advance_makes_nothing(app):
    """Break the guard on purpose: a caller that read the same next_at after the winner committed matches nothing."""
    create_users(1)
    sid = make("daily 10:00")
    now = SAT_10 + timedelta(seconds=1)
    assert len(recurring.release_due(FAST, now=now)) == 1
    # The loser saw next_at = SAT_10 before the winner's commit: it releases that same occurrence.
    assert recurring.release(sid, SAT_10, now, FAST) is None
    assert len(jobs()) == 1 and len(occurrences(sid)) == 1


def test_cron_down_three_days_sends_only_the_latest_under_send(app, simulator):
    create_users(2)
    sid = make("daily 10:00", if_missed="send")
    back = SAT_10 + timedelta(days=3, hours=5)  # cron returns on Tuesday 15:00
    [job_id] = recurring.release_due(FAST, now=back)
    assert occurrences(sid) == [(SAT_10, "skipped", None), (SAT_10 + timedelta(days=1), "skipped", None),
                                (SAT_10 + timedelta(days=2), "skipped", None),
                                (SAT_10 + timedelta(days=3), "made", job_id)]
    assert recurring.release_due(FAST, now=back + timedelta(minutes=1)) == []  # the next call: nothing again
    assert len(jobs()) == 1
    row = series(sid)
    assert (row.next_at, row.occurrences, row.made_count) == (SAT_10 + timedelta(days=4), 4, 1)


def test_cron_down_skips_every_missed_occurrence_under_skip(app):
    create_users(2)
    sid = make("daily 10:00", if_missed="skip")
    assert recurring.release_due(FAST, now=SAT_10 + timedelta(days=3, hours=5)) == []
    assert jobs() == []
    assert [o[1] for o in occurrences(sid)] == ["skipped"] * 4
    row = series(sid)
    assert (row.next_at, row.occurrences, row.made_count) == (SAT_10 + timedelta(days=4), 4, 0)
    # cron is back on time the next day: that occurrence is sent
    assert len(recurring.release_due(FAST, now=SAT_10 + timedelta(days=4, seconds=5))) == 1


def test_under_skip_an_occurrence_exactly_the_grace_late_is_sent_a_second_more_is_skipped(app):
    """The grace is inclusive, as a one-off schedule's: at exactly the grace the occurrence still goes."""
    create_users(1)
    grace = timedelta(minutes=FAST["schedule_grace_minutes"])
    sid = make("daily 10:00", if_missed="skip")
    day = timedelta(days=1)
    on_the_edge = recurring.release_due(FAST, now=SAT_10 + grace)
    past_it = recurring.release_due(FAST, now=SAT_10 + day + grace + timedelta(seconds=1))
    assert [(at, outcome) for at, outcome, _ in occurrences(sid)] == [(SAT_10, "made"), (SAT_10 + day, "skipped")]
    assert len(on_the_edge) == 1 and past_it == [] and len(jobs()) == 1
    assert (series(sid).occurrences, series(sid).made_count) == (2, 1)


def test_the_count_is_honoured(app):
    create_users(1)
    sid = make("daily 10:00", count=2)
    assert len(recurring.release_due(FAST, now=SAT_10)) == 1
    assert len(recurring.release_due(FAST, now=SAT_10 + timedelta(days=1))) == 1
    row = series(sid)
    assert (row.status, row.next_at, row.made_count) == ("ended", None, 2)
    assert recurring.release_due(FAST, now=SAT_10 + timedelta(days=5)) == []
    assert len(jobs()) == 2


def test_the_end_date_is_honoured(app):
    create_users(1)
    sid = make("daily 10:00", until="2026-12-27")  # through Sunday, Tehran
    assert len(recurring.release_due(FAST, now=SAT_10)) == 1
    assert series(sid).next_at == SAT_10 + timedelta(days=1)
    assert len(recurring.release_due(FAST, now=SAT_10 + timedelta(days=1))) == 1
    assert (series(sid).status, series(sid).next_at) == ("ended", None)


def test_pause_resume_stop(app):
    create_users(1)
    sid = make("daily 10:00")
    assert recurring_series.pause(sid, audit.ACTOR_CLI)
    assert not recurring_series.pause(sid, audit.ACTOR_CLI)  # already paused: refused
    assert recurring.release_due(FAST, now=SAT_10 + timedelta(days=2)) == [] and jobs() == []
    assert recurring_series.resume(sid, audit.ACTOR_CLI, now=SAT_10 + timedelta(days=2, hours=1))
    row = series(sid)
    assert (row.status, row.next_at) == ("active", SAT_10 + timedelta(days=3))  # from now on: nothing made late
    assert occurrences(sid) == []
    assert recurring_series.stop(sid, audit.ACTOR_CLI)
    assert (series(sid).status, series(sid).next_at) == ("stopped", None)
    assert not recurring_series.resume(sid, audit.ACTOR_CLI) and not recurring_series.stop(sid, audit.ACTOR_CLI)
    assert recurring.release_due(FAST, now=SAT_10 + timedelta(days=400)) == []


def test_a_series_paused_after_cron_read_it_makes_nothing(app):
    create_users(1)
    sid = make("daily 10:00")
    recurring_series.pause(sid, audit.ACTOR_CLI)  # between cron's read of the due list and its advance
    assert recurring.release(sid, SAT_10, SAT_10 + timedelta(seconds=1), FAST) is None
    assert jobs() == [] and occurrences(sid) == []


def test_an_empty_audience_records_the_occurrence_and_sends_nothing(app):
    sid = make("daily 10:00")
    assert recurring.release_due(FAST, now=SAT_10) == []
    assert occurrences(sid) == [(SAT_10, "empty", None)] and jobs() == []
    assert (series(sid).occurrences, series(sid).made_count) == (1, 0)


def test_a_failure_before_commit_leaves_neither_job_nor_advance(app, monkeypatch):
    """The job row, the occurrence and the advance commit together: fail between them and none of them is kept."""
    create_users(1)
    sid = make("daily 10:00")

    def fail(*_args):
        raise RuntimeError("the process dies here")

    monkeypatch.setattr(recurring.repo, "record", fail)  # after advance() and the job's insert, before commit
    assert recurring.release_due(FAST, now=SAT_10) == []
    assert jobs() == [] and occurrences(sid) == [] and series(sid).next_at == SAT_10
    monkeypatch.undo()
    assert len(recurring.release_due(FAST, now=SAT_10 + timedelta(seconds=30))) == 1
    assert len(jobs()) == 1


def test_a_draft_left_by_a_dead_process_is_finished_once(app):
    create_users(2)
    sid = make("daily 10:00")
    original = recurring.fill
    recurring.fill = lambda *a, **k: None  # the process dies after the commit, before adding recipients
    try:
        assert recurring.release_due(FAST, now=SAT_10) == []
    finally:
        recurring.fill = original
    [job] = jobs()
    assert job.status == "draft" and occurrences(sid) == [(SAT_10, "made", job.id)]
    assert recurring.finish_stuck(SAT_10 + recurring.STUCK_AFTER - timedelta(seconds=1)) == []  # maybe still alive
    assert recurring.finish_stuck(job.created_at + recurring.STUCK_AFTER + timedelta(seconds=1)) == [job.id]
    assert reload(job.id).status in ("queued", "running") and reload(job.id).total_count == 2
    assert recurring.finish_stuck(job.created_at + timedelta(hours=1)) == []


@pytest.mark.parametrize("rule, until, count, key", [
    ("every day", None, None, "rec_err_format"),
    ("daily 09:00", "1405-12-30", None, "sched_err_date"),  # 1405 is not a leap year
    ("daily 09:00", "2020-01-01", None, "rec_err_until_past"),
    ("daily 09:00", None, 0, "rec_err_count"),
])
def test_bad_input_is_refused_and_nothing_is_stored(app, rule, until, count, key):
    with pytest.raises(RuleError) as err:
        recurring_series.create(DRAFT, rule, until=until, count=count, if_missed="send", created_by=None,
                                lang="en", actor=audit.ACTOR_CLI)
    assert err.value.key == key
    assert recurring_series.newest() == []


def test_an_end_before_the_first_occurrence_is_refused(app):
    today = __import__("app.services.broadcast.schedule.send_time", fromlist=["x"]).to_tehran(
        __import__("app.repository.db_clock", fromlist=["x"]).db_utcnow()).date()
    db.session.commit()
    with pytest.raises(RuleError) as err:  # monthly on the 1st, ending today: no occurrence left
        recurring_series.create(DRAFT, "monthly-g 1 00:00", until=today.isoformat(), count=None, if_missed="send",
                                created_by=None, lang="en", actor=audit.ACTOR_CLI)
    assert err.value.key == "rec_err_never"
