"""The daily cap and drip chains: a capped step waits for the next Tehran day (or steps are exempt), never ends."""
import time
from datetime import timedelta

from sqlalchemy import select

from app.bot.chains_screen import summary
from app.extensions import db
from app.models import BroadcastJob, BroadcastJobItem, Chain, ChainDelivery, User
from app.repository.db_clock import db_utcnow
from app.services.broadcast.schedule import quiet_hours
from app.services.broadcast.sending.drain import pump, pump_all
from app.services.chains import due, manage
from app.texts import t
from tests.broadcast.helpers import assert_consistent, at_once, create_text_job, engine_settings
from tests.chains.helpers import BASE, add_user, make_chain, recipients, step_ids, step_jobs

MIN, DAY = timedelta(minutes=1), timedelta(days=1)
CAP1 = engine_settings(broadcast_rate_per_second=30, max_broadcasts_per_user_per_day=1)
EXEMPT = {**CAP1, "chain_steps_exempt_from_cap": True}
# Every stored moment a chain or the cap reads: moving them all back a day is the clock moving a day on.
TIMES = {User: ("started_at", "last_seen_at"), Chain: ("created_at",), ChainDelivery: ("claimed_at", "wait_until"),
         BroadcastJob: ("created_at", "started_at", "finished_at"), BroadcastJobItem: ("sent_at",)}


def a_day_passes() -> None:
    """Move every stored time a day back: for the chains and the cap, the next Tehran day has come."""
    for model, columns in TIMES.items():
        for row in db.session.scalars(select(model)):
            for column in columns:
                if getattr(row, column) is not None:
                    setattr(row, column, getattr(row, column) - DAY)
    db.session.commit()


def away_from_midnight() -> None:
    """Wait out the last minute of a Tehran day: the scenario's "today" must not end between its steps."""
    now = db_utcnow()
    db.session.commit()
    left = (quiet_hours.tehran_day_start(now) + DAY - now).total_seconds()
    if left < 60:
        time.sleep(left + 1)


def texts_to(user_id: int, simulator) -> list[str]:
    """Return the texts the user was sent, in order."""
    return [d["text"] for d in simulator.deliveries("sendMessage") if d["chat_id"] == user_id]


def got_news_today(simulator, settings=CAP1) -> int:
    """A chain on joins (welcome now, day two a day later) and a user who joined and got a broadcast today."""
    away_from_midnight()
    now = db_utcnow()
    make_chain("joined", "0|Welcome {first_name}", "1d|Day two", at=now - 10 * MIN)
    capped = add_user(BASE, started=now - 5 * MIN)
    news = create_text_job(text="news", settings=settings)
    pump(news.id, 30, settings=settings)
    assert texts_to(capped, simulator) == ["news"]
    return capped


def stats(step: int) -> dict:
    """Return a step's numbers as `chains show` reads them."""
    [chain] = manage.newest(1)
    return chain.steps[step - 1].stats


def test_a_capped_step_waits_for_the_next_tehran_day_and_the_chain_goes_on(app, simulator):
    capped = got_news_today(simulator)
    fresh = add_user(BASE + 1, started=db_utcnow() - 4 * MIN)  # joined too, no broadcast today
    db.session.commit()
    pump_all(10, settings=CAP1)  # cron: step 1's job for both; the cap holds the one who got the news
    assert texts_to(fresh, simulator) == ["Welcome Sara"] and texts_to(capped, simulator) == ["news"]
    assert (stats(1)["delivered"], stats(1)["waiting"], stats(1)["skipped"]) == (1, 1, 0)  # waiting, not ended
    assert t("chain_step_waiting", "en", n=1) in summary(manage.newest(1)[0], "en")  # /chains says so
    first, second = step_ids(manage.newest(1)[0].id)
    tomorrow = quiet_hours.tehran_day_start(db_utcnow()) + DAY  # the next Tehran day's 00:00, not 24 h on
    assert [(d.user_id, d.wait_until) for d in _claims(first)] == [(capped, tomorrow), (fresh, None)]
    pump_all(10, settings=CAP1)  # later the same day: nothing new for the capped user, no new job
    assert texts_to(capped, simulator) == ["news"] and len(step_jobs()) == 2

    a_day_passes()
    pump_all(10, settings=CAP1)
    assert texts_to(capped, simulator) == ["news", "Welcome Sara"]  # step 1 on the next Tehran day
    assert texts_to(fresh, simulator) == ["Welcome Sara", "Day two"]  # its day two came on schedule
    retry = [j for j, s, _ in step_jobs() if s == first][-1]
    assert recipients(retry) == [capped]
    assert_consistent(retry)

    # Step 2 follows a day after step 1 reached the user: not a minute sooner.
    assert due.run_due(CAP1, now=db_utcnow() + DAY - MIN) == []
    a_day_passes()
    pump_all(10, settings=CAP1)
    assert texts_to(capped, simulator) == ["news", "Welcome Sara", "Day two"]
    assert {k: stats(1)[k] for k in ("claimed", "delivered", "waiting", "skipped", "jobs")} == \
        {"claimed": 2, "delivered": 2, "waiting": 0, "skipped": 0, "jobs": 2}
    assert (stats(2)["claimed"], stats(2)["delivered"], stats(2)["waiting"]) == (2, 2, 0)
    assert [(d.user_id, d.wait_until) for d in _claims(second)] == [(capped, None), (fresh, None)]


def _claims(step_id: int) -> list[ChainDelivery]:
    rows = list(db.session.scalars(select(ChainDelivery).where(ChainDelivery.step_id == step_id)
                                   .order_by(ChainDelivery.user_id)))
    db.session.commit()
    return rows


def test_exempt_steps_go_today_and_do_not_count_toward_the_cap(app, simulator):
    capped = got_news_today(simulator, EXEMPT)
    fresh = add_user(BASE + 1, started=db_utcnow() - 4 * MIN)
    pump_all(10, settings=EXEMPT)
    assert texts_to(capped, simulator) == ["news", "Welcome Sara"]  # exempt: sent at once, over the cap
    assert texts_to(fresh, simulator) == ["Welcome Sara"]
    assert (stats(1)["delivered"], stats(1)["waiting"]) == (2, 0)
    later = create_text_job(text="later", settings=EXEMPT)
    pump(later.id, 30, settings=EXEMPT)
    # The step is not counted: the fresh user's one broadcast of the day still reaches them; the cap holds
    # the user who got the news.
    assert texts_to(fresh, simulator) == ["Welcome Sara", "later"]
    assert texts_to(capped, simulator) == ["news", "Welcome Sara"]


def test_a_non_exempt_step_counts_toward_the_cap_of_later_broadcasts(app, simulator):
    away_from_midnight()
    make_chain("joined", "0|Welcome {first_name}", at=db_utcnow() - 10 * MIN)
    fresh = add_user(BASE, started=db_utcnow() - 4 * MIN)
    pump_all(10, settings=CAP1)
    later = create_text_job(text="later", settings=CAP1)
    pump(later.id, 30, settings=CAP1)
    assert texts_to(fresh, simulator) == ["Welcome Sara"]  # the step was the day's one message


def test_two_cron_passes_on_the_next_day_send_the_waiting_step_once(app, simulator):
    capped = got_news_today(simulator)
    pump_all(10, settings=CAP1)
    assert texts_to(capped, simulator) == ["news"] and stats(1)["waiting"] == 1
    a_day_passes()
    at_once(app, lambda: pump_all(8, settings=CAP1), 2)
    pump_all(5, settings=CAP1)
    assert texts_to(capped, simulator) == ["news", "Welcome Sara"]
    first = step_ids(manage.newest(1)[0].id)[0]
    jobs = [j for j, s, _ in step_jobs() if s == first]
    assert len(jobs) == 2 and recipients(jobs[1]) == [capped]
    assert [(d.user_id, d.job_id, d.wait_until) for d in _claims(first)] == [(capped, jobs[1], None)]
    assert (stats(1)["delivered"], stats(1)["waiting"], stats(1)["claimed"]) == (1, 0, 1)
