"""First sources and the CLI: users start through deep links (the webhook), `stats` and `broadcast create --source`."""
import csv
import io
import json
from datetime import timedelta

from app.clock import utcnow
from app.extensions import db
from app.models import User
from app.simulator.updates import message_update
from tests.factories import post_update

SOURCES = {7_400_000_001: "ad1", 7_400_000_002: "ad1", 7_400_000_003: "ad2", 7_400_000_004: None,
           7_400_000_005: "ad1"}


def cli(runner, *args):
    return runner.invoke(args=list(args))


def test_stats_and_the_source_filter(client, runner, simulator):
    for user_id, source in SOURCES.items():
        text = f"/start {source}" if source else "/start"
        assert post_update(client, message_update(user_id, text)).status_code == 200
    assert post_update(client, message_update(7_400_000_002, "/start ad2")).status_code == 200  # not overwritten
    assert post_update(client, message_update(7_400_000_005, "/stop")).status_code == 200
    db.session.execute(db.update(User).where(User.id == 7_400_000_001).values(started_at=utcnow() - timedelta(days=20)))
    db.session.commit()

    stats = cli(runner, "stats", "--json")
    assert stats.exit_code == 0, stats.output
    assert json.loads(stats.stdout)["sources"] == [
        {"source": "ad1", "users": 3, "joined_7d": 2, "joined_30d": 3, "subscribed": 2},
        {"source": "ad2", "users": 1, "joined_7d": 1, "joined_30d": 1, "subscribed": 1}]
    table = cli(runner, "stats").stdout.splitlines()
    at = table.index(next(line for line in table if line.startswith("SOURCE")))
    assert [line.split() for line in table[at + 2:]] == [["ad1", "3", "2", "3", "2"], ["ad2", "1", "1", "1", "1"]]

    # The opted-out ad1 user is left out; two --source options mean either.
    one = cli(runner, "broadcast", "create", "--audience", "all", "--text", "x", "--source", "ad1")
    assert one.exit_code == 0, one.output
    status = json.loads(cli(runner, "broadcast", "status", one.stdout.strip()).stdout)
    assert (status["total"], status["sources"]) == (2, ["ad1"])
    both = cli(runner, "broadcast", "create", "--audience", "all", "--text", "x", "--source", "ad1", "--source", "ad2")
    assert json.loads(cli(runner, "broadcast", "status", both.stdout.strip()).stdout)["total"] == 3
    pumped = cli(runner, "broadcast", "pump", "--seconds", "5")
    assert pumped.exit_code == 0, pumped.output
    got = sorted(d["chat_id"] for d in simulator.deliveries("sendMessage") if d["text"] == "x")
    assert got == [7_400_000_001, 7_400_000_001, 7_400_000_002, 7_400_000_002, 7_400_000_003]

    # The export names each recipient's first source (the last column).
    exported = cli(runner, "broadcast", "export", both.stdout.strip(), "--csv", "-")
    rows = list(csv.reader(io.StringIO(exported.stdout.lstrip("\ufeff"))))
    assert rows[0][-1] == "source"
    assert {(row[0], row[-1]) for row in rows[1:]} == {
        ("7400000001", "ad1"), ("7400000002", "ad1"), ("7400000003", "ad2")}

    empty = cli(runner, "broadcast", "create", "--audience", "all", "--text", "x", "--source", "nobody")
    assert empty.exit_code == 2 and "no users after its filters" in empty.output
    for bad in ("x" * 65, "bad.chars", "سلام"):
        refused = cli(runner, "broadcast", "create", "--audience", "all", "--text", "x", "--source", bad)
        assert refused.exit_code == 2 and "--source" in refused.output, refused.output
