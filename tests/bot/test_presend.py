"""The pre-send screen through the webhook: filters, options, duration, paid cost and its second confirmation."""
import json
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.clock import utcnow
from app.extensions import db
from app.models import User
from app.services.settings import set_setting
from app.texts import t
from tests.bot.wizard import all_jobs, buttons, last_answer, offered, press, screen, send, step_of, tap, texts_to
from tests.broadcast.helpers import create_text_job
from tests.conftest import ADMIN_ID, MAIN_CHANNEL_ID
from tests.factories import admin_state, create_user

pytestmark = pytest.mark.usefixtures("fast_telegram")
# user id -> (language_code, days since last seen, days since start)
PEOPLE = {8001: ("fa", 0, 0), 8002: ("en", 0, 0), 8003: ("en-US", 20, 20), 8004: (None, 40, 100)}
TOGGLES = [["silent", "protect"], ["fa", "en", "other"], ["a7", "a30"], ["j7", "j30"]]


@pytest.fixture
def people(app):
    """Four reachable users of different languages and ages."""
    now = utcnow()
    for user_id, (code, seen, started) in PEOPLE.items():
        create_user(user_id, language_code=code)
        db.session.execute(update(User).where(User.id == user_id).values(
            last_seen_at=now - timedelta(days=seen), started_at=now - timedelta(days=started)))
    db.session.commit()
    return list(PEOPLE)


def to_screen(client, sim, audience: str = "all") -> dict:
    """Walk a new draft to its pre-send screen; return the screen's delivery (abort is always on it)."""
    send(client, sim, "/broadcast")
    send(client, sim, "hello")
    press(client, sim, "w.no_button")
    press(client, sim, "w.aud:" + audience)
    return offered(sim, "w.abort")


def preview_id() -> str:
    return json.loads(admin_state(ADMIN_ID).draft)["preview_id"]


def reached(sim) -> list[int]:
    return sorted(d["chat_id"] for d in sim.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID)


def test_screen_shows_count_duration_options_and_bound_toggles(client, simulator, people):
    shown = to_screen(client, simulator)
    assert shown["text"] == screen(4, duration="≈ ۱ ثانیه")
    [copy] = simulator.deliveries("copyMessage", ADMIN_ID)
    assert copy["text"] == "hello"  # the exact message, above the screen
    pid = preview_id()
    rows = shown["reply_markup"]["inline_keyboard"]
    assert [[b["callback_data"] for b in row] for row in rows[:-4]] == [
        [f"w.opt:{arg}:{pid}" for arg in row] for row in TOGGLES]
    assert [b["callback_data"] for b in rows[-4]] == [f"w.opt:urgent:{pid}", f"w.opt:unsub:{pid}"]
    assert [b["callback_data"] for b in rows[-3]] == [f"w.opt:{arg}:{pid}" for arg in ("x0", "x1", "x6", "x24", "x47")]
    assert [b["callback_data"] for b in rows[-2]] == [f"w.sched:{pid}"]
    assert [b["text"] for b in rows[0]] == [t("btn_opt_silent"), t("btn_opt_protect")]
    # Confirm carries an id of its own: the toggles' and Abort's id never confirms.
    cid = json.loads(admin_state(ADMIN_ID).draft)["confirm_id"]
    assert cid != pid and [b["callback_data"] for b in rows[-1]] == [f"w.confirm:{cid}", f"w.abort:{pid}"]


def test_language_and_activity_toggles_rerender_and_expire_the_old_confirm(client, simulator, people):
    first = to_screen(client, simulator)
    old_pid = preview_id()
    old_cid = json.loads(admin_state(ADMIN_ID).draft)["confirm_id"]
    press(client, simulator, "w.opt:en")
    assert last_answer(simulator)["text"] is None
    edited = offered(simulator, "w.confirm")
    assert (edited["method"], edited["message_id"]) == ("editMessageText", first["message_id"])
    assert edited["text"] == screen(2, filters=" (زبان: انگلیسی)")
    assert preview_id() != old_pid
    on = [b["text"] for row in edited["reply_markup"]["inline_keyboard"] for b in row if b["text"].endswith(" ✅")]
    assert on == [t("btn_opt_en") + " ✅"]

    # A stale Confirm (the screen before the toggle) cannot confirm the options now shown.
    tap(client, simulator, f"w.confirm:{old_cid}", message_id=first["message_id"])
    assert (last_answer(simulator)["text"], all_jobs()) == (t("wiz_stale"), [])

    press(client, simulator, "w.opt:a7")
    assert offered(simulator, "w.confirm")["text"] == screen(1, filters=" (زبان: انگلیسی؛ فعال در 7 روز اخیر)")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.audience_langs, job.audience_active_days, job.audience_joined_days) == ("en", 7, None)
    assert (job.total_count, job.status) == (1, "completed")
    assert reached(simulator) == [8002]


def test_other_language_and_joined_presets(client, simulator, people):
    to_screen(client, simulator)
    press(client, simulator, "w.opt:other")
    press(client, simulator, "w.opt:fa")
    assert offered(simulator, "w.confirm")["text"] == screen(2, filters=" (زبان: فارسی، سایر زبان‌ها)")
    press(client, simulator, "w.opt:j30")
    assert offered(simulator, "w.confirm")["text"] == screen(
        1, filters=" (زبان: فارسی، سایر زبان‌ها؛ عضو‌شده در 30 روز اخیر)")
    press(client, simulator, "w.opt:j30")  # pressed again: the preset is off
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.audience_langs, job.audience_joined_days, job.total_count) == ("fa,other", None, 2)
    assert reached(simulator) == [8001, 8004]


def test_silent_and_protect_reach_every_delivery(client, simulator, people):
    to_screen(client, simulator)
    press(client, simulator, "w.opt:silent")
    press(client, simulator, "w.opt:protect")
    assert offered(simulator, "w.confirm")["text"] == screen(4, options="🔕 بی‌صدا، 🔒 محافظت از محتوا")
    press(client, simulator, "w.confirm")
    [job] = all_jobs()
    assert (job.silent, job.protect, job.sent_count) == (True, True, 4)
    copies = [d for d in simulator.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID]
    assert sorted(d["chat_id"] for d in copies) == people
    assert all(d["disable_notification"] and d["protect_content"] for d in copies)


def test_a_toggle_that_leaves_nobody_is_refused_and_changes_nothing(client, simulator, people):
    to_screen(client, simulator)
    press(client, simulator, "w.opt:other")  # 8004 only, who started 100 days ago
    pid, edits = preview_id(), len(simulator.deliveries("editMessageText"))
    press(client, simulator, "w.opt:j7")
    answer = last_answer(simulator)
    assert (answer["text"], answer["show_alert"]) == (t("wiz_filters_empty"), True)
    assert (preview_id(), len(simulator.deliveries("editMessageText"))) == (pid, edits)
    press(client, simulator, "w.confirm")
    assert reached(simulator) == [8004]


def test_duration_includes_the_queue_ahead_at_the_current_budget(client, simulator, people):
    set_setting("broadcast_rate_per_second", "1")
    create_text_job()  # running, its 4 items not yet sent
    db.session.commit()
    shown = to_screen(client, simulator)
    assert shown["text"] == screen(4, duration="≈ ۸ ثانیه", queue=" (پس از 4 پیامِ در صف)")


def test_under_a_hosts_query_cap_the_duration_follows_it_and_the_screen_says_why(client, simulator, people):
    # 20,000 statements an hour, 80 % for broadcasts: 4.4 a second, 4 of them the pump's own per second,
    # the rest at 0.13 a message in blocks of 100: 3.4 messages a second.
    set_setting("db_statements_per_hour", "20000")
    shown = to_screen(client, simulator)
    cap_line = t("wiz_statement_cap", cap="۲۰,۰۰۰", rate="۳.۴")
    assert shown["text"] == screen(4, duration="≈ ۲ ثانیه", queue=cap_line), shown["text"]
    set_setting("db_statements_per_hour", "0")  # no cap: Telegram's rate again, and no line
    assert to_screen(client, simulator)["text"] == screen(4, duration="≈ ۱ ثانیه")


AT_START = t("wiz_paid_at_start")  # the screen offers scheduling a paid broadcast: its balance is read at start


def paid_lines(stars: str, balance: str, lang: str = "fa") -> str:
    return t("wiz_paid_line", lang, stars=stars, cap=10000) + t("wiz_balance_line", lang, balance=balance)


def test_paid_broadcast_needs_a_second_confirmation(client, simulator, people):
    set_setting("broadcast_paid_enabled", "on")
    simulator.configure(star_balance=50)
    first = to_screen(client, simulator)
    assert first["text"] == screen(4, paid=AT_START + paid_lines("0.4", "50"))
    press(client, simulator, "w.confirm")
    assert all_jobs() == [] and step_of() == "wiz:preview"
    second = offered(simulator, "w.confirm")
    assert second["text"] == t("wiz_paid_confirm", count=4) + paid_lines("0.4", "50") + t("wiz_paid_ask")
    assert [b["text"] for b in second["reply_markup"]["inline_keyboard"][0]] == [t("btn_pay_confirm"), t("btn_abort")]
    # The first screen's buttons (a double tap, a late toggle) are stale now.
    press(client, simulator, "w.confirm", under=first)
    assert last_answer(simulator)["text"] == t("wiz_stale")
    press(client, simulator, "w.opt:silent", under=first)
    assert (last_answer(simulator)["text"], all_jobs()) == (t("wiz_stale"), [])

    press(client, simulator, "w.confirm", under=second)
    [job] = all_jobs()
    assert (job.paid, job.sent_count) == (True, 4)
    copies = [d for d in simulator.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID]
    assert len(copies) == 4 and all(d["paid"] for d in copies)
    # Read for the screen, for the second question, once more at the last Confirm, then by the pump before the
    # first copy and after the last (the spend beside the estimate).
    assert simulator.stats()["calls"]["getMyStarBalance"] == 5


def test_paid_is_refused_when_the_balance_cannot_cover_the_cap(client, simulator, people):
    set_setting("broadcast_paid_enabled", "on")
    simulator.configure(star_balance=0.3)
    shown = to_screen(client, simulator)
    short = t("wiz_balance_short", balance="0.3", stars="0.4")
    assert shown["text"] == screen(4, paid=AT_START + paid_lines("0.4", "0.3") + short, ask=False)
    assert not any(d.startswith("w.confirm") for d in buttons(shown))
    assert any(d.startswith("w.abort") for d in buttons(shown))
    # A forged Confirm with the id the screen's toggles and Abort carry confirms nothing: Confirm has its own id.
    sent = len(simulator.deliveries("sendMessage", ADMIN_ID))
    tap(client, simulator, f"w.confirm:{preview_id()}", message_id=shown["message_id"])
    assert last_answer(simulator)["text"] == t("wiz_stale")
    assert len(simulator.deliveries("sendMessage", ADMIN_ID)) == sent and all_jobs() == []


def test_a_paid_broadcast_is_never_sent_past_the_balance_by_a_crafted_or_late_confirm(client, simulator, people):
    set_setting("broadcast_paid_enabled", "on")
    simulator.configure(star_balance=50)
    to_screen(client, simulator)
    press(client, simulator, "w.confirm")
    second = offered(simulator, "w.confirm")
    [abort] = [d for d in buttons(second) if d.startswith("w.abort")]
    simulator.configure(star_balance=0)  # spent elsewhere while the question was open
    # The Abort's id in a crafted Confirm: refused, nothing sent.
    tap(client, simulator, "w.confirm:" + abort.split(":")[1], message_id=second["message_id"])
    assert last_answer(simulator)["text"] == t("wiz_stale") and all_jobs() == []
    # The real last Confirm: the balance is read again and refuses.
    press(client, simulator, "w.confirm", under=second)
    short = t("wiz_balance_short", balance="0", stars="0.4")
    assert simulator.deliveries("sendMessage", ADMIN_ID)[-1]["text"] == t(
        "wiz_paid_refused", line=paid_lines("0.4", "0") + short)
    assert all_jobs() == []
    assert [d for d in simulator.deliveries("copyMessage") if d["chat_id"] != ADMIN_ID] == []


def test_paid_cost_is_capped_by_the_per_job_limit(client, simulator, people):
    set_setting("broadcast_paid_enabled", "on")
    set_setting("broadcast_paid_max_messages", "3")
    simulator.configure(star_balance=0.3)
    shown = to_screen(client, simulator)
    line = t("wiz_paid_line", stars="0.3", cap=3) + t("wiz_balance_line", balance="0.3")
    assert shown["text"] == screen(4, paid=AT_START + line)
    assert any(d.startswith("w.confirm") for d in buttons(shown))


def test_paid_cost_shows_what_telegram_likely_bills_and_checks_the_balance_against_the_most(client, simulator,
                                                                                               people):
    set_setting("broadcast_paid_enabled", "on")
    set_setting("broadcast_paid_rate_per_second", "2")  # 4 recipients in 2 s: all within the free 30 a second
    simulator.configure(star_balance=0.3)
    shown = to_screen(client, simulator)
    line = t("wiz_paid_line", stars="0.4", cap=10000) + t("wiz_paid_likely", stars="0.0")
    assert line + t("wiz_balance_line", balance="0.3") in shown["text"]
    # Telegram's accounting of the free share is not published: the balance must cover every message.
    assert t("wiz_balance_short", balance="0.3", stars="0.4") in shown["text"]
    assert not any(d.startswith("w.confirm") for d in buttons(shown))


def test_the_balance_is_counted_to_the_nanostar(client, simulator, people):
    # One nanostar short of the 0.3 Star three copies may cost: short, and shown as it is, never rounded up.
    set_setting("broadcast_paid_enabled", "on")
    set_setting("broadcast_paid_max_messages", "3")
    simulator.set_stars(0, 299_999_999)
    shown = to_screen(client, simulator)
    line = t("wiz_paid_line", stars="0.3", cap=3) + t("wiz_balance_line", balance="0.299999999")
    short = t("wiz_balance_short", balance="0.299999999", stars="0.3")
    assert shown["text"] == screen(4, paid=AT_START + line + short, ask=False)
    assert not any(d.startswith("w.confirm") for d in buttons(shown))


def test_unreadable_balance_refuses_paid(client, simulator, people):
    set_setting("broadcast_paid_enabled", "on")
    simulator.configure(fail_5xx_ratio=1.0, fault_methods=["getMyStarBalance"])
    shown = to_screen(client, simulator)
    assert shown["text"].endswith(t("wiz_balance_unknown"))
    assert not any(d.startswith("w.confirm") for d in buttons(shown))


def test_member_audiences_are_not_offered_without_a_main_channel(app, client, simulator, people, monkeypatch):
    monkeypatch.setitem(app.config, "MAIN_CHANNEL_ID", None)
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    choose = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert choose["text"] == t("wiz_choose_audience")
    draft_id = json.loads(admin_state(ADMIN_ID).draft)["draft_id"]
    assert buttons(choose) == [f"w.aud:all:{draft_id}"]
    tap(client, simulator, f"w.aud:members:{draft_id}", message_id=choose["message_id"])
    answer = last_answer(simulator)
    assert (answer["text"], answer["show_alert"]) == (t("wiz_no_channel"), True)
    assert step_of() == "wiz:audience" and texts_to(simulator)[-1] == t("wiz_choose_audience")
    assert MAIN_CHANNEL_ID is not None  # the other tests do offer them
