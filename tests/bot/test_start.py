"""/start: registration, unblocking, language, admin menu, and the single membership lookup."""
import pytest

from app.models.user import CHANNEL_MEMBER, CHANNEL_NOT_MEMBER, CHANNEL_UNKNOWN
from app.simulator.updates import message_update
from app.texts import t
from tests.conftest import ADMIN_ID, MAIN_CHANNEL_ID
from tests.factories import create_user, get_user, post_update

pytestmark = pytest.mark.usefixtures("fast_telegram")


def start(client, user_id, **kwargs):
    response = post_update(client, message_update(user_id, "/start", **kwargs))
    assert response.status_code == 200
    return response.get_json()


def texts_to(simulator, chat_id):
    return [d["text"] for d in simulator.deliveries("sendMessage", chat_id)]


def chat_member_calls(simulator):
    return simulator.stats()["calls"].get("getChatMember", 0)


def test_new_user_is_registered_and_welcomed_in_persian(client, simulator):
    assert start(client, 2001, first_name="Sara", last_name="K", username="sara_k") == {
        "ok": True, "outcome": "handled"}
    user = get_user(2001)
    assert (user.first_name, user.last_name, user.username, user.language_code) == ("Sara", "K", "sara_k", "fa")
    assert user.started_at is not None and user.last_seen_at is not None
    assert not user.is_blocked
    assert texts_to(simulator, 2001) == [t("welcome", "fa", name="Sara")]
    assert simulator.deliveries("sendMessage", 2001)[0]["reply_markup"] is None


def test_names_longer_than_their_columns_are_stored_cut_to_them(client, simulator):
    # Telegram's own limits are lower; a forged update must still not fail the insert on strict MySQL.
    assert start(client, 2005, first_name="س" * 300, last_name="L" * 300, username="u" * 80,
                 language_code="x" * 20)["outcome"] == "handled"
    user = get_user(2005)
    assert (user.first_name, user.last_name, user.username, user.language_code) == (
        "س" * 255, "L" * 255, "u" * 64, "x" * 16)


def test_returning_blocked_user_is_unblocked_and_refreshed(client, simulator):
    create_user(2002, first_name="Old", username="old", is_blocked=True, main_channel_status=CHANNEL_MEMBER)
    before = get_user(2002).started_at
    start(client, 2002, first_name="New", username=None)
    user = get_user(2002)
    assert (user.first_name, user.username, user.is_blocked, user.blocked_at) == ("New", None, False, None)
    assert user.started_at == before
    assert user.main_channel_status == CHANNEL_MEMBER


@pytest.mark.parametrize("code", ["en", "en-US", "EN-gb"])
def test_english_user_gets_english(client, simulator, code):
    start(client, 2003, first_name="Tom", language_code=code)
    assert texts_to(simulator, 2003) == [t("welcome", "en", name="Tom")]


@pytest.mark.parametrize("code", [None, "fa", "de", "ar"])
def test_other_languages_get_persian(client, simulator, code):
    start(client, 2004, first_name="X", language_code=code)
    assert texts_to(simulator, 2004) == [t("welcome", "fa", name="X")]


def test_admin_gets_the_menu_keyboard(client, simulator):
    start(client, ADMIN_ID, first_name="Admin")
    [sent] = simulator.deliveries("sendMessage", ADMIN_ID)
    assert sent["text"] == t("welcome", "fa", name="Admin") + "\n\n" + t("admin_menu", "fa")
    labels = [row[0]["text"] for row in sent["reply_markup"]["keyboard"]]
    assert labels == ["📢 پیامرسانی همگانی", "📋 ارسال‌های اخیر", "⚙️ تنظیمات ارسال"]


def test_user_flagged_admin_in_database_gets_the_menu(client, simulator):
    create_user(2005, is_admin=True)
    start(client, 2005, language_code="en")
    [sent] = simulator.deliveries("sendMessage", 2005)
    assert [row[0]["text"] for row in sent["reply_markup"]["keyboard"]] == ["📢 Broadcast", "📋 Recent broadcasts",
                                                                               "⚙️ Broadcast settings"]


def test_unknown_membership_is_looked_up_once(client, simulator):
    simulator.set_member(MAIN_CHANNEL_ID, 2006, "member")
    start(client, 2006)
    assert chat_member_calls(simulator) == 1
    user = get_user(2006)
    assert user.main_channel_status == CHANNEL_MEMBER
    assert user.main_channel_checked_at is not None
    start(client, 2006)
    start(client, 2006)
    assert chat_member_calls(simulator) == 1


def test_left_user_becomes_not_member(client, simulator):
    start(client, 2007)  # the simulator answers "left" for anyone never set
    assert get_user(2007).main_channel_status == CHANNEL_NOT_MEMBER


def test_known_membership_is_not_looked_up(client, simulator):
    create_user(2008, main_channel_status=CHANNEL_NOT_MEMBER)
    start(client, 2008)
    assert chat_member_calls(simulator) == 0


def test_failed_lookup_is_ignored(client, simulator):
    simulator.forget(MAIN_CHANNEL_ID)  # "Bad Request: chat not found"
    assert start(client, 2009)["outcome"] == "handled"
    assert get_user(2009).main_channel_status == CHANNEL_UNKNOWN
    assert len(texts_to(simulator, 2009)) == 1


def test_no_lookup_without_a_main_channel(app, client, simulator):
    app.config["MAIN_CHANNEL_ID"] = None
    start(client, 2010)
    assert chat_member_calls(simulator) == 0
    assert get_user(2010).main_channel_status == CHANNEL_UNKNOWN


@pytest.mark.parametrize("user_id", [2**31, 2**31 + 1, 5_000_000_000, 2**52])
def test_ids_beyond_32_bits(client, simulator, user_id):
    start(client, user_id, first_name="Big")
    assert get_user(user_id).id == user_id
    assert texts_to(simulator, user_id) == [t("welcome", "fa", name="Big")]


def test_persian_and_emoji_names_round_trip_exactly(client, simulator):
    first, last, username = "زهرا 🌸‌جان", "محمدی 👩🏽‍💻🇮🇷", "zahra_1"
    start(client, 2011, first_name=first, last_name=last, username=username)
    user = get_user(2011)
    assert (user.first_name, user.last_name, user.username) == (first, last, username)
    assert texts_to(simulator, 2011) == [t("welcome", "fa", name=first)]


def test_start_with_payload_and_bot_suffix(client, simulator):
    post_update(client, message_update(2012, "/start ref_42"))
    post_update(client, message_update(2013, "/start@update_pack_sim_bot"))
    assert get_user(2012) is not None and get_user(2013) is not None


def test_plain_text_from_a_user_gets_a_hint(client, simulator):
    post_update(client, message_update(2014, "hello"))
    assert texts_to(simulator, 2014) == [t("unknown_command", "fa")]


def test_two_first_starts_at_once_make_one_user(app, simulator, monkeypatch):
    """Two different updates from a new user race on the users row: both are handled, one row exists."""
    import threading
    import time

    from app.bot import router
    from app.bot import start as start_module

    entered = threading.Event()

    def slow_start(ctx):
        start_module.on_start(ctx)
        entered.set()
        time.sleep(0.3)  # keep the first insert uncommitted while the second arrives

    monkeypatch.setitem(router.COMMANDS, "start", slow_start)
    outcomes = []

    def deliver(update_id, wait_for=None):
        if wait_for is not None:
            wait_for.wait(5)
        response = post_update(app.test_client(), message_update(2020, "/start", first_name="Race",
                                                                 update_id=update_id))
        outcomes.append(response.get_json()["outcome"])

    threads = [threading.Thread(target=deliver, args=(801,)), threading.Thread(target=deliver, args=(802, entered))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert outcomes == ["handled", "handled"]
    assert get_user(2020).first_name == "Race"
    assert len(texts_to(simulator, 2020)) == 2
