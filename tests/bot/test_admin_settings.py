"""The settings menu: every key as a button, a value asked, validated like the CLI."""
import pytest

from app.services.settings import load_settings
from app.settings_schema import DEFS, format_range
from app.texts import t
from tests.bot.wizard import last_answer, send, step_of, tap, texts_to
from tests.conftest import ADMIN_ID

pytestmark = pytest.mark.usefixtures("fast_telegram")


def text(name, **values):
    """texts.t cannot take a placeholder called "key"; format the template here."""
    return t(name).format(**values)


def menu_buttons(delivery):
    return [row[0] for row in delivery["reply_markup"]["inline_keyboard"]]


def test_menu_lists_every_setting(client, simulator, app):
    send(client, simulator, "/settings")
    [menu] = simulator.deliveries("sendMessage", ADMIN_ID)
    assert menu["text"] == t("settings_menu")
    buttons = menu_buttons(menu)
    assert [b["callback_data"] for b in buttons] == [f"s.edit:{key}" for key in DEFS]
    assert buttons[0]["text"] == "broadcast_batch_size = 25"
    assert "broadcast_paid_enabled = off" in [b["text"] for b in buttons]


def test_menu_button_in_both_languages(client, simulator, app):
    send(client, simulator, "⚙️ تنظیمات ارسال")
    send(client, simulator, "⚙️ Broadcast settings", language_code="en")
    assert texts_to(simulator) == [t("settings_menu", "fa"), t("settings_menu", "en")]


def test_change_a_value(client, simulator, app):
    tap(client, simulator, "s.edit:broadcast_batch_size")
    assert last_answer(simulator)["text"] is None
    d = DEFS["broadcast_batch_size"]
    assert texts_to(simulator)[-1] == text("settings_ask", key=d.key, value="25", range=format_range(d), help=d.help)
    assert step_of() == "settings"
    send(client, simulator, " 50 ")
    assert load_settings()["broadcast_batch_size"] == 50
    saved = simulator.deliveries("sendMessage", ADMIN_ID)[-1]
    assert saved["text"] == text("settings_saved", key="broadcast_batch_size", value="50")
    assert menu_buttons(saved)[0]["text"] == "broadcast_batch_size = 50"
    assert step_of() is None


def test_booleans_and_floats(client, simulator, app):
    tap(client, simulator, "s.edit:broadcast_paid_enabled")
    send(client, simulator, "on")
    tap(client, simulator, "s.edit:broadcast_rate_per_second")
    send(client, simulator, "12.5")
    values = load_settings()
    assert (values["broadcast_paid_enabled"], values["broadcast_rate_per_second"]) == (True, 12.5)


@pytest.mark.parametrize("key, raw", [
    ("broadcast_batch_size", "abc"), ("broadcast_batch_size", "0"), ("broadcast_batch_size", "501"),
    ("broadcast_batch_size", "2.5"), ("broadcast_paid_enabled", "maybe"), ("broadcast_rate_per_second", "nan"),
    ("cron_pump_seconds", "59"),  # a cron pump must end before the next minute's call
])
def test_invalid_values_keep_the_step(client, simulator, app, key, raw):
    before = load_settings()
    tap(client, simulator, f"s.edit:{key}")
    send(client, simulator, raw)
    reply = texts_to(simulator)[-1]
    assert reply.startswith(t("settings_invalid", error="")) and key in reply
    assert step_of() == "settings"
    assert load_settings() == before
    send(client, simulator, "/cancel")
    assert step_of() is None
    assert load_settings() == before


def test_photo_instead_of_a_value(client, simulator, app):
    tap(client, simulator, "s.edit:broadcast_batch_size")
    send(client, simulator, photo=True)
    assert texts_to(simulator)[-1] == t("settings_invalid", error=t("settings_need_text"))
    assert step_of() == "settings"


def test_unknown_setting_button(client, simulator, app):
    tap(client, simulator, "s.edit:no_such_setting")
    assert last_answer(simulator)["text"] == t("wiz_expired")
    assert step_of() is None
