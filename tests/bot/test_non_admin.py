"""A non-admin trying every admin command, button and callback changes nothing."""
import json

import pytest
from sqlalchemy import select

from app.bot import router
from app.extensions import db
from app.models import UserTag
from app.services import audit
from app.services.broadcast.jobs import creation
from app.services.settings import load_settings
from app.texts import t
from tests.bot.wizard import all_jobs, send, tap, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, create_admin_state, create_user, create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
INTRUDER = 8001


@pytest.fixture
def running_job(app, simulator):
    """A running job of three recipients that nobody has pumped yet."""
    create_users([8101, 8102, 8103])
    source = simulator.add_message(ADMIN_ID, text="news")
    job = creation.create_job(audience="all", created_by=ADMIN_ID, settings=load_settings(), progress_chat_id=ADMIN_ID,
                              content={"type": "copy", "from_chat_id": ADMIN_ID, "message_id": source})
    return job.id


def snapshot():
    return [(j.id, j.status, j.sent_count, j.total_count, j.pause_reason) for j in all_jobs()], load_settings()


def test_every_admin_entry_is_refused(client, simulator, running_job):
    create_user(INTRUDER)
    before = snapshot()
    commands = ["/broadcast", "/settings", "/cancel", "/broadcast@update_pack_sim_bot", "/SETTINGS",
                t("menu_broadcast", "fa"), t("menu_broadcast", "en"), t("menu_settings", "fa"),
                t("menu_settings", "en"), "/stats", "/jobs", t("menu_jobs", "fa"), t("menu_jobs", "en"),
                "/tag vip 8101", "/untag vip 8101"]
    # Every other admin command the router knows, so a new one cannot slip past this test.
    commands += [f"/{name}" for name in router.COMMANDS
                 if name not in router.PUBLIC_COMMANDS and f"/{name}" not in commands]
    for text in commands:
        send(client, simulator, text, user_id=INTRUDER)
    assert texts_to(simulator, INTRUDER) == [t("not_admin")] * len(commands)

    callbacks = ["w.no_button", "w.aud:all", "w.aud:members", "w.confirm", "w.abort",
                 f"w.continue:{running_job}", f"w.cancel_job:{running_job}", f"w.pause:{running_job}",
                 f"w.resume:{running_job}", "s.edit:broadcast_batch_size", "s.edit:broadcast_paid_enabled",
                 "garbage", "w.continue:-1", "j.list", f"j.view:{running_job}",
                 # After-send actions and the retry screen's buttons (a well-formed token of a screen).
                 f"j.retry:{running_job}", f"j.retry_u:{running_job}", "r.ok:AbCd1234", "r.no:AbCd1234",
                 f"j.unsend:{running_job}", f"j.edit:{running_job}", "a.yes:AbCd1234", f"j.export:{running_job}"]
    for data in callbacks:
        tap(client, simulator, data, user_id=INTRUDER, message_id=1)
    answers = simulator.callback_answers()
    assert [(a["text"], a["show_alert"]) for a in answers] == [(t("not_admin"), True)] * len(callbacks)

    assert snapshot() == before
    assert audit.entries() == [], "a refused action is never logged"
    assert admin_state(INTRUDER) is None
    assert db.session.execute(select(UserTag)).first() is None  # /tag changed nobody
    assert simulator.deliveries("copyMessage") == []
    assert texts_to(simulator, ADMIN_ID) == []


def test_english_non_admin_is_refused_in_english(client, simulator, app):
    send(client, simulator, "/broadcast", user_id=INTRUDER, language_code="en")
    assert texts_to(simulator, INTRUDER) == [t("not_admin", "en")]


def test_a_former_admin_with_a_leftover_state_cannot_use_it(client, simulator, running_job):
    """State rows do not grant rights: input from a non-admin never reaches the wizard."""
    draft = {"content": {"type": "copy", "from_chat_id": INTRUDER, "message_id": 5}, "audience": "all"}
    create_admin_state(INTRUDER, "wiz:preview", draft)
    before = snapshot()
    tap(client, simulator, "w.confirm", user_id=INTRUDER, message_id=1)
    send(client, simulator, "some text", user_id=INTRUDER)
    create_admin_state(INTRUDER + 1, "settings", {"key": "broadcast_batch_size"})
    send(client, simulator, "7", user_id=INTRUDER + 1)
    assert snapshot() == before
    assert json.loads(admin_state(INTRUDER).draft) == draft
    assert texts_to(simulator, INTRUDER) == [t("unknown_command")]
    assert simulator.callback_answers()[0]["text"] == t("not_admin")


def test_admin_removed_from_config_loses_rights(app, client, simulator):
    app.config["ADMIN_IDS"] = frozenset()
    send(client, simulator, "/broadcast")
    assert texts_to(simulator, ADMIN_ID) == [t("not_admin")]
    assert admin_state(ADMIN_ID) is None


def test_user_row_admin_flag_grants_rights(client, simulator, app):
    create_user(8002, is_admin=True)
    send(client, simulator, "/broadcast", user_id=8002)
    assert texts_to(simulator, 8002) == [t("wiz_send_message")]


# A well-formed argument of each kind a button carries (app.bot.callback_data._ARGS).
SAMPLE_ARGS = {"audience": "all", "setting": "broadcast_batch_size", "option": "silent", "preset": "hour",
               "source": "ads", "variant": "en", "edit_variant": "default", "ab_pick": "1.A", "ab_share": "10",
               "ab_wait": "2h",
               "keyed": "1.1.AAAAAAAA", "ab_goal": 1}
# Pressed by any user, under copies and /stop's answer (tests/bot/test_optout.py).


def test_every_declared_admin_button_is_refused_to_a_non_admin(client, simulator, running_job):
    """Each button in the registry, well formed, pressed by a non-admin: refused, nothing changes."""
    from app.bot.callback_data import SPEC, build, new_token, parse

    parse("j.list")  # loads every handler module, so SPEC holds every button
    create_user(INTRUDER)
    before = snapshot()
    pressed = []
    for _prefix, (action, kind, bound) in sorted(SPEC.items()):
        if action in router.PUBLIC_CALLBACKS:  # under copies: anyone who got one may press them
            continue
        arg = None if kind is None else running_job if kind == "id" else SAMPLE_ARGS[kind]
        pressed.append(build(action, arg, new_token() if bound else None))
    for data in pressed:
        tap(client, simulator, data, user_id=INTRUDER, message_id=1)
    answers = simulator.callback_answers()
    assert [(a["text"], a["show_alert"]) for a in answers] == [(t("not_admin"), True)] * len(pressed), pressed
    public = [prefix for prefix, (action, _, _) in SPEC.items() if action in router.PUBLIC_CALLBACKS]
    # A new public button is a decision, not a slip.
    assert sorted(public) == ["b.key", "b.tap", "u.off", "u.out", "u.stop", "u.sub"]
    assert len(pressed) == len(SPEC) - len(public)
    assert snapshot() == before
    assert audit.entries() == []
    assert admin_state(INTRUDER) is None
    assert simulator.deliveries("copyMessage") == []
    assert texts_to(simulator, ADMIN_ID) == []
