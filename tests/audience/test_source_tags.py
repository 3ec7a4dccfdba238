"""Deep-link tags: `/start SOURCE` tags new and returning users each time; the map is managed by the CLI."""
import json

import pytest

from tests.audience.helpers import all_tags, ok, refused, tags_of
from tests.bot.wizard import send
from tests.factories import create_users, get_user

pytestmark = pytest.mark.usefixtures("fast_telegram")


def test_a_deep_link_tags_new_and_existing_users_every_time(client, simulator, runner):
    out = ok(runner, "users", "source-tag", "insta_Ad", "Instagram")
    assert out.strip() == "/start insta_Ad tags users 'instagram'"
    create_users([802])  # existed before the link
    send(client, simulator, "/start insta_Ad", user_id=801)
    send(client, simulator, "/start insta_Ad", user_id=802)
    send(client, simulator, "/start insta_ad", user_id=803)  # payloads are case-sensitive: another source
    assert all_tags() == {(801, "instagram"), (802, "instagram")}
    # Every start with it: a user whose tag was removed gets it back, idempotently.
    ok(runner, "users", "tag", "remove", "instagram", "--ids", "801")
    send(client, simulator, "/start insta_Ad", user_id=801)
    send(client, simulator, "/start insta_Ad", user_id=801)
    assert tags_of(801) == {"instagram"} and get_user(801).start_source == "insta_Ad"
    info = json.loads(ok(runner, "users", "show", "801", "--json"))
    assert info["tags"][0]["origin"] == "deeplink"


def test_the_map_is_listed_replaced_and_removed(app, runner):
    ok(runner, "users", "source-tag", "ch1", "a")
    assert ok(runner, "users", "source-tag", "ch1", "b").strip() == "/start ch1 tags users 'b' (was 'a')"
    assert json.loads(ok(runner, "users", "source-tags", "--json")) == [{"source": "ch1", "tag": "b"}]
    assert ok(runner, "users", "source-untag", "ch1").strip() == "/start ch1 no longer tags users"
    assert ok(runner, "users", "source-untag", "ch1").strip() == "/start ch1 tagged nobody (nothing changed)"
    assert ok(runner, "users", "source-tags").strip() == "no source tags"


def test_bad_sources_and_tags_are_refused(app, runner):
    assert "is not a /start payload" in refused(runner, "users", "source-tag", "a b", "x")
    assert "contains a space" in refused(runner, "users", "source-tag", "ok", "x y")
    assert ok(runner, "users", "source-tags").strip() == "no source tags"


def test_a_start_without_a_mapped_source_tags_nobody(client, simulator, runner):
    ok(runner, "users", "source-tag", "ch1", "a")
    send(client, simulator, "/start", user_id=804)
    send(client, simulator, "/start other", user_id=805)
    assert all_tags() == set()
