"""'⏰ Schedule' in the wizard through the webhook: presets, typed times, errors, re-time and cancel."""
import json
from datetime import datetime, timedelta, timezone

import jdatetime
import pytest

from app.bot.callback_data import Callback, parse
from app.extensions import db
from app.repository.db_clock import db_utcnow
from app.services import audit
from app.services.broadcast.schedule.send_time import describe, preset_time, to_persian_digits, to_tehran
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")


@pytest.fixture
def audience(app):
    create_users([5101, 5102])


def to_schedule_step(client, sim, text="خبر"):
    """Walk the wizard to the preview and press ⏰; return the question."""
    send(client, sim, "/broadcast")
    send(client, sim, text)
    press(client, sim, "w.no_button")
    press(client, sim, "w.aud:all")
    press(client, sim, "w.sched")
    return sim.deliveries("sendMessage", ADMIN_ID)[-1]


def jalali(local) -> str:
    """Write a Tehran time as an admin would: Solar Hijri date and HH:MM."""
    return f"{jdatetime.date.fromgregorian(date=local.date()):%Y/%m/%d} {local:%H:%M}"


def utc(local):
    """Return an aware Tehran time as stored: naive UTC."""
    return local.astimezone(timezone.utc).replace(tzinfo=None)


def db_now():
    value = db_utcnow()
    db.session.commit()
    return value


def test_the_preview_offers_schedule_above_confirm_and_abort(client, simulator, audience):
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    preview = offered(simulator, "w.confirm")
    preview_id = json.loads(admin_state(ADMIN_ID).draft)["preview_id"]
    rows = preview["reply_markup"]["inline_keyboard"]
    assert rows[-2] == [{"text": t("btn_schedule"), "callback_data": f"w.sched:{preview_id}"}]
    confirm_id = json.loads(admin_state(ADMIN_ID).draft)["confirm_id"]
    assert [b["callback_data"] for b in rows[-1]] == [f"w.confirm:{confirm_id}", f"w.abort:{preview_id}"]


def test_a_preset_schedules_the_draft(client, simulator, audience):
    ask = to_schedule_step(client, simulator)
    assert step_of() == "sched:new"
    token = json.loads(admin_state(ADMIN_ID).draft)["sched_token"]
    assert [row[0]["text"] for row in ask["reply_markup"]["inline_keyboard"]] == [
        t("btn_preset_hour"), t("btn_preset_tonight"), t("btn_preset_tomorrow")]
    assert buttons(ask) == [f"w.at:{p}:{token}" for p in ("hour", "tonight", "tomorrow")]
    before = db_now()
    press(client, simulator, "w.at:tomorrow")
    [job] = all_jobs()
    assert job.status == "scheduled" and step_of() is None
    assert job.send_at == preset_time("tomorrow", before)
    assert texts_to(simulator)[-1] == t("sched_done", id=job.id, when=describe(job.send_at, "fa"),
                                        audience=t("aud_name_all"), count=2)
    assert simulator.deliveries("sendMessage", 5101) == []
    [entry] = audit.entries(job.id)
    assert (entry["actor"], entry["action"]) == (f"admin:{ADMIN_ID}", "scheduled")
    assert entry["detail"].endswith(f"send_at={job.send_at:%Y-%m-%dT%H:%M:%SZ}")
    # The same preset again: the step was taken, nothing more is created.
    tap(client, simulator, buttons(ask)[2], message_id=ask["message_id"])
    assert len(all_jobs()) == 1 and last_answer(simulator)["text"] == t("wiz_expired")


def test_typed_time_errors_keep_the_admin_on_the_step(client, simulator, audience):
    to_schedule_step(client, simulator)
    send(client, simulator, "فردا صبح")
    assert texts_to(simulator)[-1] == t("sched_err_format")
    send(client, simulator, "۱۴۰۵/۱۳/۰۱ ۲۱:۰۰")
    assert texts_to(simulator)[-1] == t("sched_err_date", year=1405, month=13, day=1)
    yesterday = to_tehran(db_now() - timedelta(days=1))
    send(client, simulator, jalali(yesterday))
    assert texts_to(simulator)[-1].startswith(t("sched_err_past").split("{when}")[0])
    assert to_persian_digits(jalali(yesterday)).split()[0] in texts_to(simulator)[-1]
    assert step_of() == "sched:new" and all_jobs() == []
    ahead = to_tehran(db_now() + timedelta(days=2)).replace(hour=21, minute=0, second=0, microsecond=0)
    send(client, simulator, to_persian_digits(f"{ahead:%Y-%m-%d %H:%M}"))  # Gregorian in Persian digits
    [job] = all_jobs()
    assert job.send_at == utc(ahead)


def test_retime_and_cancel_a_scheduled_job_from_its_buttons(client, simulator, audience):
    to_schedule_step(client, simulator)
    first = to_tehran(db_now() + timedelta(days=3)).replace(hour=21, minute=0, second=0, microsecond=0)
    send(client, simulator, jalali(first))
    [job] = all_jobs()
    assert job.send_at == utc(first)
    press(client, simulator, "w.retime")
    assert step_of() == "sched:retime"
    later = (first + timedelta(days=1)).replace(hour=9, minute=30)
    send(client, simulator, jalali(later).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")))  # Arabic-Indic
    [job] = all_jobs()
    assert job.send_at == utc(later) and job.status == "scheduled"
    assert texts_to(simulator)[-1] == t("sched_retimed", id=job.id, when=describe(job.send_at, "fa"))
    press(client, simulator, "w.cancel_job")
    assert all_jobs()[0].status == "cancelled"
    press(client, simulator, "w.retime")
    assert last_answer(simulator)["text"] == t("sched_gone")
    assert simulator.deliveries("sendMessage", 5101) == []


def test_retime_and_send_now_are_audited_with_the_admin_and_the_new_time(client, simulator, audience):
    to_schedule_step(client, simulator)
    send(client, simulator, jalali(to_tehran(db_now() + timedelta(days=3)).replace(hour=21, minute=0, second=0)))
    [job] = all_jobs()
    press(client, simulator, "w.retime")
    later = to_tehran(db_now() + timedelta(days=4)).replace(hour=9, minute=30, second=0, microsecond=0)
    send(client, simulator, jalali(later))
    assert all_jobs()[0].send_at == utc(later)
    before = db_now().replace(microsecond=0)
    tap(client, simulator, f"w.send_now:{job.id}")
    tap(client, simulator, f"w.send_now:{job.id}")  # refused: already released, so no second entry
    assert last_answer(simulator)["text"] == t("sched_gone")
    actor = f"admin:{ADMIN_ID}"
    entries = audit.entries(job.id)
    assert [(e["actor"], e["action"]) for e in entries] == [(actor, "scheduled"), (actor, "rescheduled"),
                                                           (actor, "sent_now")]
    assert entries[1]["detail"] == f"send_at={utc(later):%Y-%m-%dT%H:%M:%SZ}"
    queued_at = entries[2]["detail"].removeprefix("queued_at=")
    assert before <= datetime.fromisoformat(queued_at.rstrip("Z")) <= db_now()
    tap(client, simulator, f"j.view:{job.id}")
    view = texts_to(simulator)[-1]
    assert f"{actor}: {t('act_rescheduled')} ({entries[1]['detail']})" in view
    assert f"{actor}: {t('act_sent_now')} ({entries[2]['detail']})" in view


def test_an_old_preset_cannot_act_on_a_newer_question(client, simulator, audience):
    first = to_schedule_step(client, simulator)
    # Re-open the step (a new question with a new token) and press the first question's preset.
    send(client, simulator, "/broadcast")
    second = to_schedule_step(client, simulator, "خبر دوم")
    assert buttons(first) != buttons(second)
    tap(client, simulator, buttons(first)[0], message_id=first["message_id"])
    assert last_answer(simulator)["text"] == t("wiz_stale") and all_jobs() == []


def test_tonight_is_21_tehran_or_refused_once_past(client, simulator, audience):
    to_schedule_step(client, simulator)
    local = to_tehran(db_now())
    press(client, simulator, "w.at:tonight")
    tonight = local.replace(hour=21, minute=0, second=0, microsecond=0)
    if local < tonight - timedelta(seconds=5):
        [job] = all_jobs()
        assert job.send_at == utc(tonight)
    elif local >= tonight:
        assert last_answer(simulator)["text"].startswith("❌") and all_jobs() == []
        assert step_of() == "sched:new"


def test_new_callback_data_round_trips():
    assert parse("w.sched:Ab3_x9Kq") == Callback("schedule", None, "Ab3_x9Kq")
    assert parse("w.at:tonight:Ab3_x9Kq") == Callback("at", "tonight", "Ab3_x9Kq")
    assert parse("w.retime:12") == Callback("retime", 12, None)
    assert parse("w.send_now:12") == Callback("send_now", 12, None)
    for bad in ("w.at:noon:Ab3_x9Kq", "w.at:tonight", "w.sched", "w.send_now:0", "w.retime:x"):
        assert parse(bad) is None


def test_scheduled_lists_waiting_jobs_with_their_buttons(client, simulator, audience):
    from sqlalchemy import update

    from app.models import BroadcastJob
    from app.services.broadcast.jobs import creation

    send(client, simulator, "/scheduled")
    assert texts_to(simulator) == [t("sched_none")]
    def create(send_at=None):
        return creation.create_job(audience="all", created_by=ADMIN_ID, content={"type": "text", "text": "x"},
                                   send_at=send_at)

    later = create(db_now() + timedelta(days=2))
    sooner = create(db_now() + timedelta(hours=1))
    create()  # sent at once: not listed
    db.session.execute(update(BroadcastJob).where(BroadcastJob.id == sooner.id).values(missed_at=db_now()))
    db.session.commit()
    send(client, simulator, "/scheduled")
    first, second = simulator.deliveries("sendMessage", ADMIN_ID)[-2:]
    assert first["text"] == t("sched_item", id=sooner.id, when=describe(sooner.send_at, "fa"),
                              audience=t("aud_name_all"), count=2, missed=t("sched_item_missed"))
    assert second["text"] == t("sched_item", id=later.id, when=describe(later.send_at, "fa"),
                               audience=t("aud_name_all"), count=2, missed="")
    assert buttons(second) == [f"w.retime:{later.id}", f"w.cancel_job:{later.id}"]


def test_a_paid_broadcast_is_scheduled_from_the_bot_as_from_the_cli_and_its_balance_read_when_it_starts(
        client, simulator, audience, runner):
    # The bot and `broadcast create --at` agree: a paid broadcast may be scheduled, even with a balance short
    # now (a top-up may come first); the engine reads the balance when it starts and pauses it, saying why.
    from app.models.broadcast import BroadcastJob
    from app.services.broadcast.sending.drain import pump_all
    from app.services.settings import set_setting
    from tests.broadcast.helpers import engine_settings

    set_setting("broadcast_paid_enabled", True)
    simulator.set_stars(0, 100_000_000)  # 0.1 Star: two copies may cost 0.2
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    screen_msg = offered(simulator, "w.sched")
    assert t("wiz_paid_at_start") in screen_msg["text"]
    assert not any(data.startswith("w.confirm:") for data in buttons(screen_msg))  # not sent now: short
    press(client, simulator, "w.sched")
    press(client, simulator, "w.at:hour")
    at = to_tehran(db_now() + timedelta(hours=2)).isoformat()
    result = runner.invoke(args=["broadcast", "create", "--audience", "all", "--text", "News", "--at", at])
    assert result.exit_code == 0, result.output
    jobs = all_jobs()
    assert [(job.status, job.paid) for job in jobs] == [("scheduled", True)] * 2
    db.session.execute(db.update(BroadcastJob).values(send_at=db_now() - timedelta(seconds=1)))
    db.session.commit()
    pump_all(8, settings=engine_settings(broadcast_paid_enabled=True))
    reasons = {job.progress_lang: (job.status, job.pause_reason) for job in all_jobs()}
    assert reasons == {lang: ("paused", t("reason_stars_short", lang, balance="0.1", cost="0.2"))
                       for lang in ("fa", "en")}
    assert [d for d in simulator.deliveries() if d["paid"]] == []


@pytest.mark.parametrize("typed", ["9999-12-31 23:59", "۹۹۹۹/۱۲/۲۹ ۲۳:۵۹"])
def test_a_time_beyond_the_calendars_is_refused_in_words_and_keeps_the_step(client, simulator, audience, typed):
    to_schedule_step(client, simulator)
    before = len(texts_to(simulator))
    send(client, simulator, typed)
    [answer] = texts_to(simulator)[before:]
    prefix, suffix = t("sched_err_range").split("{latest}")
    assert answer.startswith(prefix) and answer.endswith(suffix)
    assert step_of() == "sched:new" and all_jobs() == []
    two_years = to_tehran(db_now() + timedelta(days=730)).replace(hour=21, minute=0, second=0, microsecond=0)
    send(client, simulator, f"{two_years:%Y-%m-%d %H:%M}")
    assert texts_to(simulator)[-1] == t("sched_err_far", when=describe(utc(two_years), "fa"))
    assert step_of() == "sched:new" and all_jobs() == []
