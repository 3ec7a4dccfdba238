"""/help through the webhook: a user learns what the bot is for; an admin, every command and menu button."""
import pytest

from app.bot import router
from app.simulator.updates import message_update
from app.texts import t
from tests.conftest import ADMIN_ID
from tests.factories import create_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")


def ask_help(client, simulator, user_id, text="/help", **kwargs) -> dict:
    """Send /help as user_id; return the one message the bot answered with."""
    response = post_update(client, message_update(user_id, text, **kwargs))
    assert response.status_code == 200 and response.get_json()["ok"] is True
    [answer] = simulator.deliveries("sendMessage", user_id)
    return answer


@pytest.mark.parametrize("code, lang", [("fa", "fa"), ("en-US", "en"), (None, "fa")])
def test_a_users_help_says_what_the_bot_is_for_in_their_language(client, simulator, code, lang):
    create_user(3001)
    answer = ask_help(client, simulator, 3001, language_code=code)
    assert answer["text"] == t("help_user", lang)
    assert answer["reply_markup"] is None
    for command in set(router.COMMANDS) - router.PUBLIC_COMMANDS:
        assert f"/{command}" not in answer["text"]  # nothing a user could not use
    assert t("not_admin", lang) not in answer["text"]


def test_a_stranger_who_never_sent_start_gets_the_same_help(client, simulator):
    assert ask_help(client, simulator, 3002, "/help@update_pack_sim_bot")["text"] == t("help_user", "fa")


@pytest.mark.parametrize("code, lang", [("fa", "fa"), ("en", "en")])
def test_an_admins_help_lists_every_command_and_menu_button(client, simulator, code, lang):
    answer = ask_help(client, simulator, ADMIN_ID, language_code=code)
    text = answer["text"]
    assert text == t("help_admin", lang, menu_broadcast=t("menu_broadcast", lang), menu_jobs=t("menu_jobs", lang),
                     menu_settings=t("menu_settings", lang))
    for command in router.COMMANDS:
        if command != "help":
            assert f"/{command}" in text, command
    for button in router.MENU_BUTTONS:
        assert t(button, lang) in text, button
    labels = [b["text"] for row in answer["reply_markup"]["keyboard"] for b in row]
    assert sorted(labels) == sorted(t(button, lang) for button in router.MENU_BUTTONS)
