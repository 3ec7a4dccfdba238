"""`flask broadcast create --copy-from CHAT --message-ids 10,11,12`: an album job, pumped to the simulator."""
import json

import pytest

from app.models import BroadcastJob
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import create_users, engine_settings, reload
from tests.cli.test_broadcast_cmd import count, create


def test_create_album_then_pump_delivers_one_album_per_user(runner, simulator):
    users = create_users(3)
    ids = [simulator.add_message(-1001234567890, photo=f"p{i}") for i in range(3)]
    result = create(runner, "--audience", "all", "--copy-from", "-1001234567890",
                    "--message-ids", f"{ids[2]},{ids[0]}, {ids[1]}")
    assert result.exit_code == 0, result.output
    job = reload(int(result.stdout))
    assert (job.content_type, job.from_chat_id, json.loads(job.source_message_ids)) == (
        "album", -1001234567890, ids)
    assert pump(job.id, 20, settings=engine_settings(broadcast_rate_per_second=28)).stop == "done"
    for user_id in users:
        assert [d["source_message_id"] for d in simulator.deliveries("copyMessages", user_id)] == ids


@pytest.mark.parametrize("args, message", [
    (["--copy-from", "-100", "--message-id", "1", "--message-ids", "1,2"], "--copy-from needs --message-id"),
    (["--copy-from", "-100", "--message-ids", "1,x"], "comma-separated list"),
    (["--copy-from", "-100", "--message-ids", "0,1"], "positive message ids"),
    (["--text", "x", "--message-ids", "1,2"], "--message-ids goes with --copy-from"),
    (["--copy-from", "-100", "--message-ids", "1,2", "--button-text", "Go", "--button-url", "https://x.org"],
     "an album carries no button"),
])
def test_create_album_refuses_bad_input(runner, args, message):
    create_users(2)
    result = create(runner, "--audience", "all", *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr and "Traceback" not in result.output
    assert count(BroadcastJob) == 0


@pytest.mark.parametrize("ids", [list(range(1, 12)), [7], [7, 7]])
def test_an_album_of_other_than_two_to_ten_parts_is_refused_in_one_line(runner, ids):
    create_users(2)
    result = create(runner, "--audience", "all", "--copy-from", "-100", "--message-ids", ",".join(map(str, ids)))
    assert result.exit_code == 2, result.output
    assert result.stderr == (f"Error: --message-ids: a Telegram album has 2 to 10 parts, got {len(set(ids))} "
                             "distinct ids (one message goes with --message-id)\n")
    assert count(BroadcastJob) == 0


def test_an_album_of_ten_parts_is_accepted(runner):
    create_users(1)
    result = create(runner, "--audience", "all", "--copy-from", "-100", "--message-ids", "1,2,3,4,5,6,7,8,9,10")
    assert result.exit_code == 0, result.output
