"""Opted-out users and the CLI: users stop through the webhook, `broadcast create`, `pump`, `stats` and `export`."""
import csv
import io
import json

from app.simulator.updates import message_update, my_chat_member_update
from tests.conftest import ADMIN_ID
from tests.factories import post_update

STAYS, LEAVES = 7_300_000_001, 7_300_000_002


def say(client, update) -> None:
    assert post_update(client, update).status_code == 200


def cli(runner, *args) -> str:
    result = runner.invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_stopped_user_is_left_out_by_the_cli_and_counted_by_stats(client, runner, simulator):
    for user_id in (STAYS, LEAVES):
        say(client, message_update(user_id, "/start"))
    say(client, message_update(LEAVES, "/stop"))
    # Blocking and unblocking (and /start) later do not undo the opt-out.
    say(client, my_chat_member_update(LEAVES, "member", "kicked"))
    say(client, my_chat_member_update(LEAVES, "kicked", "member"))
    say(client, message_update(LEAVES, "/start"))

    counts = json.loads(cli(runner, "stats", "--json"))
    assert (counts["users"], counts["blocked"], counts["opted_out"]) == (2, 0, 1)
    job_id = cli(runner, "broadcast", "create", "--audience", "all", "--text", "سلام").strip()
    assert json.loads(cli(runner, "broadcast", "status", job_id))["total"] == 1
    cli(runner, "broadcast", "pump", "--seconds", "5")
    got = {d["chat_id"] for d in simulator.deliveries("sendMessage") if d["text"] == "سلام"}
    assert got == {STAYS}
    rows = list(csv.reader(io.StringIO(cli(runner, "broadcast", "export", job_id, "--csv", "-").lstrip("\ufeff"))))
    assert [row[0] for row in rows[1:]] == [str(STAYS)]

    say(client, message_update(LEAVES, "/subscribe"))
    assert json.loads(cli(runner, "stats", "--json"))["opted_out"] == 0
    again = cli(runner, "broadcast", "create", "--audience", "all", "--text", "دوباره").strip()
    assert json.loads(cli(runner, "broadcast", "status", again))["total"] == 2
    assert ADMIN_ID not in got
