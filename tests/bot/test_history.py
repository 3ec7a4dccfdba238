"""/stats, the recent broadcasts, a job's view and its audit log, through the webhook and the simulator."""
from datetime import datetime, timedelta

import pytest

from app.bot.history import job_view_text
from app.clock import utcnow
from app.extensions import db
from app.models import BroadcastJob, User
from app.models.user import CHANNEL_MEMBER
from app.services import audit, users
from app.services.broadcast.jobs import control, creation
from app.services.broadcast.jobs.status import job_status
from app.services.broadcast.reporting.progress import format_duration
from app.services.broadcast.schedule.send_time import tehran_minute
from app.services.broadcast.sending.drain import pump
from app.services.settings import set_setting
from app.services.users import Profile
from app.texts import t
from tests.bot.wizard import buttons, last_answer, press, send, tap, texts_to
from tests.broadcast.helpers import engine_settings, reload
from tests.conftest import ADMIN_ID
from tests.factories import create_user, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
RECIPIENTS = [6001, 6002, 6003]


def age(user_id: int, *, started_days: float, seen_days: float) -> None:
    """Move a user's first and last contact into the past."""
    now = utcnow()
    db.session.execute(db.update(User).where(User.id == user_id).values(
        started_at=now - timedelta(days=started_days), last_seen_at=now - timedelta(days=seen_days)))
    db.session.commit()


def trail(job_id: int) -> list[tuple[str, str]]:
    """Return a job's audit entries as (actor, action)."""
    return [(e["actor"], e["action"]) for e in audit.entries(job_id)]


def view_of(simulator, job_id: int) -> dict:
    """Return the newest job view of job_id sent to the admin."""
    header = t("job_view").split("{status}")[0].format(id=job_id)
    return [d for d in simulator.deliveries("sendMessage", ADMIN_ID) if d["text"].startswith(header)][-1]


def test_stats_counts_a_seeded_population(client, simulator):
    create_user(3001, main_channel_status=CHANNEL_MEMBER)            # new today, active
    create_user(3002)
    age(3002, started_days=3, seen_days=3)                           # new this week, active
    create_user(3003, is_blocked=True)
    age(3003, started_days=20, seen_days=20)                         # active in 30 days, blocked
    create_user(3004, is_blocked=True, main_channel_status=CHANNEL_MEMBER)
    age(3004, started_days=60, seen_days=60)
    create_user(3005)
    age(3005, started_days=100, seen_days=10)                        # old, but seen in 30 days
    create_user(ADMIN_ID)
    age(ADMIN_ID, started_days=400, seen_days=400)                   # seen again by its /stats: active
    users.set_opted_out(Profile(3005), True)                         # opted out: still a user
    db.session.commit()

    send(client, simulator, "/stats")
    assert texts_to(simulator) == [t("stats", users=6, active_7d=3, active_30d=5, blocked=2, opted_out=1,
                                     channel_members=2, new_today=1, new_week=2, clicks="")]
    send(client, simulator, "/stats", language_code="en")
    assert texts_to(simulator)[-1] == t("stats", "en", users=6, active_7d=3, active_30d=5, blocked=2, opted_out=1,
                                        channel_members=2, new_today=1, new_week=2, clicks="")


@pytest.mark.parametrize("lang", ["fa", "en"])
def test_stats_and_job_view_show_the_clicks_of_a_broadcast_with_a_button(client, simulator, app, lang):
    create_user(ADMIN_ID)
    create_users([7001, 7002])
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=ADMIN_ID, settings=settings, button_text="b",
                              button_url="https://example.com/x", content={"type": "text", "text": "hi"})
    pump(job.id, 20, settings=settings)
    # Two clicks of one recipient: one recipient clicked, of the job's copies.
    db.session.execute(db.update(BroadcastJob).where(BroadcastJob.id == job.id).values(clicks_total=2, clicks_unique=1))
    db.session.commit()
    view = job_status(reload(job.id))
    rate = f"{1 / view.sent * 100:.1f}%"
    send(client, simulator, "/stats", language_code=lang)
    assert texts_to(simulator)[-1].endswith(t("stats_clicks", lang, id=job.id, clicks=1, total=2, rate=rate))
    assert t("clicks_line", lang, clicks=1, total=2, rate=rate) in job_view_text(view, ADMIN_ID, [], lang, utcnow())


def test_recent_jobs_view_and_every_admin_action_is_audited(client, simulator):
    create_users(RECIPIENTS)
    set_setting("webhook_pump_calls", "0")  # the confirmed job stays running: its actions stay available
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر تازه 🎉")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.confirm")
    [job] = control.list_jobs()
    job_id = job.id
    assert trail(job_id) == [(f"admin:{ADMIN_ID}", "confirmed")]

    send(client, simulator, t("menu_jobs"))
    listing = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert listing["text"] == t("jobs_title")
    assert listing["reply_markup"]["inline_keyboard"] == [[{
        "text": t("job_row_send", id=job_id, status=t("status_running"), done=0, total=3),
        "callback_data": f"j.view:{job_id}"}]]

    press(client, simulator, f"j.view:{job_id}", under=listing)
    view = view_of(simulator, job_id)
    assert f"{t('status_running')}\n👤 ایجادکننده: {ADMIN_ID}\n👥 مخاطبان: {t('aud_name_all')} — 3 نفر" in view["text"]
    assert f"admin:{ADMIN_ID}: {t('act_confirmed')} (audience=all total=3)" in view["text"]
    assert buttons(view) == [f"w.pause:{job_id}", f"w.cancel_job:{job_id}", f"j.exp:{job_id}", f"j.export:{job_id}",
                             "j.list"]

    # Each action pressed under the view edits that view: new state, new buttons, new audit line.
    steps = [("w.pause", "cb_paused", "paused", f"{t('act_paused')} ({t('reason_admin')})",
              [f"w.resume:{job_id}", f"w.cancel_job:{job_id}", f"j.retry:{job_id}", f"j.exp:{job_id}",
               f"j.export:{job_id}", "j.list"]),
             ("w.resume", "cb_resumed", "running", f"{t('act_resumed')} (running)",
              [f"w.pause:{job_id}", f"w.cancel_job:{job_id}", f"j.exp:{job_id}", f"j.export:{job_id}", "j.list"]),
             ("w.cancel_job", "cb_cancelled", "cancelled", t("act_cancelled"),
              [f"j.retry:{job_id}", f"j.exp:{job_id}", f"j.export:{job_id}", "j.list"])]
    for action, answer, status, line, expected_buttons in steps:
        tap(client, simulator, f"{action}:{job_id}", message_id=view["message_id"])
        assert (last_answer(simulator)["text"], reload(job_id).status) == (t(answer), status)
        edit = [d for d in simulator.deliveries("editMessageText", ADMIN_ID)
                if d["message_id"] == view["message_id"]][-1]
        assert f"— {t(f'status_{status}')}\n" in edit["text"] and f"admin:{ADMIN_ID}: {line}" in edit["text"]
        assert buttons(edit) == expected_buttons
    tap(client, simulator, f"w.cancel_job:{job_id}", message_id=view["message_id"])  # refused: already ended
    assert last_answer(simulator)["text"] == t("cb_finished")

    send(client, simulator, "/settings")
    press(client, simulator, "s.edit:broadcast_batch_size")
    send(client, simulator, "0")      # refused: not logged
    send(client, simulator, "30")
    assert trail(job_id) == [(f"admin:{ADMIN_ID}", a) for a in ("confirmed", "paused", "resumed", "cancelled")]
    [setting] = [e for e in audit.entries() if e["action"] == "setting_changed"]
    assert (setting["actor"], setting["job_id"], setting["detail"]) == (f"admin:{ADMIN_ID}", None,
                                                                       "broadcast_batch_size: 25 -> 30")


def test_view_of_a_finished_cli_job_shows_counters_duration_and_its_trail(client, simulator):
    create_users(RECIPIENTS)
    settings = engine_settings()
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "سلام"},
                              settings=settings, lang="en", actor=audit.ACTOR_CLI)
    assert pump(job.id, 10, settings=settings).stop == "done"
    job = reload(job.id)
    status = job_status(job)
    [entry] = audit.entries(job.id)
    at = tehran_minute(datetime.fromisoformat(entry["at"][:19]))  # the entry's UTC time as Tehran wall time
    expected = t("job_view", id=job.id, status=t("status_completed"), author=t("job_author_unknown"),
                 audience=t("aud_name_all"), total=3, sent=3, failed=0, skipped=0, unknown=0,
                 unsent=t("unsent_pending", n=0), rate=status.rate,
                 # As shown: the status's whole-second times (the view is rendered from them).
                 duration=format_duration((status.finished_at - status.started_at).total_seconds(), "fa"),
                 created=tehran_minute(job.created_at), reason="",
                 audit=f"• {at} — cli: {t('act_created')} (audience=all total=3)")

    tap(client, simulator, f"j.view:{job.id}")
    view = view_of(simulator, job.id)
    assert view["text"] == expected
    # All sent: nothing to retry; its copies can be deleted, edited or pinned everywhere, or expire; 📊 it delivered.
    assert buttons(view) == [f"j.unsend:{job.id}", f"j.edit:{job.id}", f"j.pin:{job.id}", f"j.exp:{job.id}",
                             f"j.chart:{job.id}", f"j.export:{job.id}", "j.list"]
    press(client, simulator, "j.list", under=view)
    assert simulator.deliveries("sendMessage", ADMIN_ID)[-1]["reply_markup"]["inline_keyboard"][0][0]["text"] == \
        t("job_row_send", id=job.id, status=t("status_completed"), done=3, total=3)


def test_no_jobs_and_unknown_job(client, simulator):
    send(client, simulator, "/jobs")
    assert texts_to(simulator) == [t("jobs_empty")]
    tap(client, simulator, "j.view:424242")
    assert last_answer(simulator)["text"] == t("cb_unknown_job")


def test_a_job_view_with_long_audit_details_keeps_the_newest_entries_within_one_message(client, simulator):
    """Fifteen long details (an edit's new words, a long reason) would pass Telegram's 4096: the oldest go."""
    from app.services.broadcast.content.telegram_html import utf16_len

    create_users(RECIPIENTS)
    job = creation.create_job(audience="all", created_by=None, content={"type": "text", "text": "سلام"},
                              settings=engine_settings(), lang="en", actor=audit.ACTOR_CLI)
    for i in range(15):
        audit.record(audit.ACTOR_CLI, "edited", job.id, f"متن {i:02d} " + "ویرایش 🙂 " * 60)
    db.session.commit()
    tap(client, simulator, f"j.view:{job.id}")
    text = view_of(simulator, job.id)["text"]
    assert utf16_len(text) <= 4096
    assert "متن 14" in text and "متن 00" not in text  # the newest stay, the oldest went


@pytest.mark.parametrize("text", ["a" * 5000, "🙂" * 3000, "x🙂" * 2000])
def test_a_view_too_long_even_without_entries_is_clipped_to_4096_utf16_units(text):
    from app.bot.history import clip
    from app.services.broadcast.content.telegram_html import utf16_len

    clipped = clip(text)
    assert 4090 <= utf16_len(clipped) <= 4096 and clipped.endswith("…") and text.startswith(clipped[:-1])
    assert clip("کوتاه") == "کوتاه"


@pytest.mark.parametrize("lang, zone", [("fa", "(به وقت تهران)"), ("en", "(Tehran time)")])
def test_the_job_view_shows_its_creation_and_audit_times_in_tehran(app, lang, zone):
    create_users([7001])
    job = creation.create_job(audience="all", created_by=ADMIN_ID, settings=engine_settings(),
                              content={"type": "text", "text": "hi"})
    db.session.execute(db.update(BroadcastJob).where(BroadcastJob.id == job.id).values(
        created_at=utcnow().replace(year=2026, month=12, day=24, hour=17, minute=30, second=0, microsecond=0)))
    db.session.commit()
    entries = [{"at": "2026-12-24T20:45:10Z", "actor": "cli", "action": "paused", "detail": ""}]
    text = job_view_text(job_status(reload(job.id)), ADMIN_ID, entries, lang, utcnow())
    assert f"2026-12-24 21:00 {zone}" in text  # 17:30 UTC is 21:00 in Tehran (UTC+03:30)
    assert "2026-12-25 00:15" in text and "UTC" not in text  # the audit line: 20:45 UTC
