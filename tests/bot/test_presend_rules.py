"""The pre-send screen's sending rules: quiet hours (now or ahead), the daily cap, the urgent toggle."""
import pytest

from app.services.settings import set_setting
from app.texts import t
from tests.bot.test_optout import start_users
from tests.bot.wizard import all_jobs, offered, press, send
from tests.broadcast.test_quiet_hours import TehranClock
from tests.conftest import ADMIN_ID

pytestmark = pytest.mark.usefixtures("fast_telegram")


@pytest.fixture
def tehran(monkeypatch):
    from app.services.broadcast.schedule import quiet_hours

    clock = TehranClock()
    monkeypatch.setattr(quiet_hours, "_wall", clock.wall)
    return clock


def to_screen(client, simulator) -> dict:
    send(client, simulator, "/broadcast")
    send(client, simulator, "خبر")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    return offered(simulator, "w.confirm")


def test_quiet_hours_and_the_cap_are_on_the_screen_and_urgent_sends_at_once(client, simulator, tehran):
    start_users(client, simulator, ADMIN_ID, 8201)
    set_setting("quiet_hours_start", "23:00")
    set_setting("quiet_hours_end", "08:00")
    set_setting("max_broadcasts_per_user_per_day", "2")
    tehran.set("15:00")
    text = to_screen(client, simulator)["text"]
    assert t("wiz_quiet_rule", "fa", window="۲۳:۰۰–۰۸:۰۰", until="۰۸:۰۰") in text
    assert "🔁 سقف ارسال: حداکثر ۲ پیام در روز برای هر کاربر" in text
    tehran.set("23:30")
    press(client, simulator, "w.opt:silent")  # re-rendered: now quiet, it says until when
    screen = offered(simulator, "w.confirm")
    assert "⏰ ساعات سکوت ۲۳:۰۰–۰۸:۰۰ (تهران): ارسال تا ۰۸:۰۰ متوقف می‌شود" in screen["text"]
    press(client, simulator, "w.opt:urgent")
    screen = offered(simulator, "w.confirm")
    assert t("wiz_quiet_urgent", "fa", window="۲۳:۰۰–۰۸:۰۰") in screen["text"]
    assert t("btn_opt_urgent", "fa") + " ✅" in [b["text"] for row in screen["reply_markup"]["inline_keyboard"]
                                                  for b in row]
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert job.urgent and job.status == "completed"  # urgent: sent through quiet hours


def test_a_job_confirmed_in_quiet_hours_waits_queued(client, simulator, tehran):
    start_users(client, simulator, ADMIN_ID, 8201)
    set_setting("quiet_hours_start", "22:00")
    set_setting("quiet_hours_end", "07:00")
    tehran.set("06:00")
    to_screen(client, simulator)
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.urgent, job.status, job.sent_count) == (False, "queued", 0)
