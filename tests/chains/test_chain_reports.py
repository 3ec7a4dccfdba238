"""A drip chain's step jobs never message the admins one by one; its numbers come in one digest a Tehran day."""
import time
from datetime import date, datetime, timedelta

from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob
from app.services.broadcast.reporting import alerts, picture
from app.services.broadcast.sending.drain import pump_all
from app.services.chains import digest, due
from app.services.telegram_factory import get_client, new_outbox
from tests.broadcast.helpers import at_once, create_text_job
from tests.chains.helpers import BASE, FAST, T0, add_user, make_chain, mark_sent, step_jobs
from tests.conftest import ADMIN_ID
from tests.factories import create_user

MIN = timedelta(minutes=1)
ENGLISH_ADMIN = 1002
# T0 is 10:00 of 2026-12-26 in Tehran; the next Tehran morning's 09:00 is 05:30 UTC.
NEXT_MORNING = datetime(2026, 12, 27, 5, 30)


def test_three_sign_ups_through_a_two_step_chain_send_the_admins_nothing(app, simulator, monkeypatch):
    monkeypatch.setitem(app.config, "RESULTS_PICTURE", True)  # the old summary's picture would follow too
    make_chain("joined", "0|Hi {first_name}", "0|Day two", at=utcnow() - 2 * MIN)
    for i in range(3):  # three sign-ups, one after another, each through both steps
        add_user(BASE + i, started=utcnow() - timedelta(seconds=1))
        pump_all(10, settings=FAST)  # cron: step 1's job for the newcomer, sent
        time.sleep(1.1)  # step 2 comes due once step 1 reached them (whole-second times on MariaDB)
        pump_all(10, settings=FAST)  # cron: step 2's job, sent
    assert picture.idle(30)
    jobs = step_jobs()
    assert len(jobs) == 6 and {status for _, _, status in jobs} == {"completed"}
    for i in range(3):
        assert len(simulator.deliveries("sendMessage", BASE + i)) == 2
    assert simulator.deliveries(chat_id=ADMIN_ID) == []  # no start, progress, summary or picture per job


def chain_day() -> int:
    """Run a 2-step chain for three sign-ups on T0's Tehran day (times chosen, sends recorded as the pump would)."""
    for i in range(3):
        add_user(BASE + i, started=T0 + (i + 1) * MIN)
    cid = make_chain("joined", "0|One", "1h|Two")
    [first] = due.run_due(FAST, now=T0 + 5 * MIN)
    mark_sent(first, T0 + 6 * MIN)
    [second] = due.run_due(FAST, now=T0 + 2 * timedelta(hours=1))
    mark_sent(second, T0 + 2 * timedelta(hours=1) + MIN)
    return cid


def admin_texts(simulator, chat_id=ADMIN_ID) -> list[str]:
    return [d["text"] for d in simulator.deliveries("sendMessage", chat_id)]


def test_the_digest_goes_once_the_next_morning_to_each_admin_in_their_language(app, simulator):
    create_user(ENGLISH_ADMIN, is_admin=True, language_code="en")
    cid = chain_day()
    assert digest.send_due(FAST, now=T0 + 3 * timedelta(hours=1)) == []  # the day is not over
    assert digest.send_due(FAST, now=NEXT_MORNING - MIN) == []  # 08:59 in Tehran: not yet
    results = at_once(app, lambda: digest.send_due(FAST, now=NEXT_MORNING + MIN), 3)  # two cron passes at once
    numbers = [{"id": cid, "name": "welcome", "started": 3, "steps": 6, "delivered": 6, "failed": 0}]
    assert sorted(results, key=len) == [[], [], numbers]
    day = date(2026, 12, 26)
    assert admin_texts(simulator) == [digest.digest_text(day, numbers, "fa")]
    assert admin_texts(simulator, ENGLISH_ADMIN) == [digest.digest_text(day, numbers, "en")]
    assert "1405/10/05" in admin_texts(simulator, ENGLISH_ADMIN)[0]
    # Later that day, and the next day (nothing sent on the 27th): nothing more.
    assert digest.send_due(FAST, now=NEXT_MORNING + 10 * timedelta(hours=1)) == []
    assert digest.send_due(FAST, now=NEXT_MORNING + timedelta(days=1, hours=1)) == []
    assert len(admin_texts(simulator)) == 1


def test_a_day_without_step_jobs_sends_no_digest(app, simulator):
    make_chain("joined", "0|One")
    assert digest.send_due(FAST, now=NEXT_MORNING + MIN) == []
    assert simulator.deliveries(chat_id=ADMIN_ID) == []


def test_a_step_job_paused_for_quiet_hours_tells_nobody_an_admins_own_job_does(app, simulator):
    add_user(BASE, started=T0 + MIN)
    make_chain("joined", "0|One")
    [step_job] = due.run_due(FAST, now=T0 + 2 * MIN)
    own = create_text_job(settings=FAST).id
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id.in_([step_job, own]))
                       .values(status="paused", pause_kind="quiet", active_slot=None))
    db.session.commit()
    outbox = new_outbox(get_client(FAST))
    alerts.job_paused(step_job, "quiet hours", outbox=outbox)  # it resumes on its own at 08:00
    outbox.close(deadline=time.monotonic() + 5)
    assert simulator.deliveries(chat_id=ADMIN_ID) == []
    outbox = new_outbox(get_client(FAST))
    alerts.job_paused(own, "quiet hours", outbox=outbox)
    outbox.close(deadline=time.monotonic() + 5)
    assert len(simulator.deliveries(chat_id=ADMIN_ID)) == 1
