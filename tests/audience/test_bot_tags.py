"""Tags set in the bot: the admin's /tag and /untag, and /stop and /subscribe's opt-out tags."""
import pytest

from app.texts import t
from tests.audience.helpers import all_tags, tags_of
from tests.bot.wizard import send, texts_to
from tests.conftest import ADMIN_ID
from tests.factories import create_users, get_user

pytestmark = pytest.mark.usefixtures("fast_telegram")


def test_an_admin_tags_and_untags_users_from_the_chat(client, simulator):
    create_users([501, 502])
    send(client, simulator, "/tag VIP 501 502 503")
    assert texts_to(simulator)[-1] == (t("tag_added", "fa", tag="vip", changed=2, unchanged=0) + "\n"
                                       + t("tag_unknown_ids", "fa", count=1, first="503"))
    assert all_tags() == {(501, "vip"), (502, "vip")}
    send(client, simulator, "/untag vip 502", language_code="en")
    assert texts_to(simulator)[-1] == t("tag_removed", "en", tag="vip", changed=1, unchanged=0)
    assert all_tags() == {(501, "vip")}


@pytest.mark.parametrize("text, key", [("/tag", "tag_usage"), ("/tag a,b 501", "tag_bad"),
                                       ("/tag vip 501 x", "tag_bad_id")])
def test_bad_admin_commands_answer_one_line_and_change_nothing(client, simulator, text, key):
    create_users([501])
    send(client, simulator, text)
    assert texts_to(simulator)[-1].startswith(t(key, "fa", error="", value="x")[:10])
    assert all_tags() == set()


def test_a_user_cannot_tag(client, simulator):
    create_users([501])
    send(client, simulator, "/tag vip 501", user_id=501)
    assert texts_to(simulator, 501)[-1] == t("not_admin", "fa")
    assert all_tags() == set()


def test_stop_and_subscribe_keep_the_opt_out_tags_in_the_same_transaction(client, simulator):
    send(client, simulator, "/start", user_id=601)
    send(client, simulator, "/subscribe", user_id=601)
    assert tags_of(601) == set()  # never opted out: not "resubscribed"
    send(client, simulator, "/stop", user_id=601)
    assert tags_of(601) == {"opted_out"} and get_user(601).opted_out_at is not None
    send(client, simulator, "/subscribe", user_id=601)
    assert tags_of(601) == {"resubscribed"} and get_user(601).opted_out_at is None
    send(client, simulator, "/stop", user_id=601)
    assert tags_of(601) == {"opted_out"}
    assert ADMIN_ID not in {uid for uid, _ in all_tags()}


def test_the_cli_opt_out_tags_too(app, runner):
    create_users([701])
    assert runner.invoke(args=["users", "opt-out", "701"]).exit_code == 0
    assert tags_of(701) == {"opted_out"}
    assert runner.invoke(args=["users", "opt-in", "701"]).exit_code == 0
    assert tags_of(701) == {"resubscribed"}
