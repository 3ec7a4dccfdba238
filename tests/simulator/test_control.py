"""SimulatorControl over the /_sim/ endpoints, and the CLI entry point."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from app.simulator import SimulatorControl
from app.simulator.control import SimulatorError

from .test_webhook import Receiver

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def control(sim):
    client = SimulatorControl(sim.base_url).wait_ready()
    yield client
    client.close()


def test_configure_and_config(control, sim):
    config = control.configure(global_rate=5, retry_after_range=(2, 4))
    assert config["global_rate"] == 5 and config["retry_after_range"] == [2, 4]
    assert sim.config()["global_rate"] == 5
    with pytest.raises(SimulatorError):
        control.configure(no_such_key=1)


def test_chat_actions(control, bot):
    control.block(1)
    control.deactivate(2)
    control.forget(3)
    assert bot.error("sendMessage", chat_id=1, text="x")[1] == "Forbidden: bot was blocked by the user"
    assert bot.error("sendMessage", chat_id=2, text="x")[1] == "Forbidden: user is deactivated"
    assert bot.error("sendMessage", chat_id=3, text="x")[1] == "Bad Request: chat not found"
    control.unblock(1)
    control.restore(2, 3)
    for chat in (1, 2, 3):
        bot.ok("sendMessage", chat_id=chat, text="x")


def test_members_messages_token(control, bot):
    control.set_member(-100400, 5, "kicked")
    assert bot.ok("getChatMember", chat_id=-100400, user_id=5)["status"] == "kicked"
    source = control.add_message(1001, text="post")
    assert bot.ok("copyMessage", chat_id=9, from_chat_id=1001, message_id=source)
    assert control.delete_message_source(1001, source) is True
    assert bot.error("copyMessage", chat_id=10, from_chat_id=1001, message_id=source)[0] == 400
    control.revoke_token()
    assert bot.error("getMe")[0] == 401
    control.restore_token()
    assert bot.ok("getMe")


def test_deliveries_stats_reset(control, bot):
    bot.ok("sendMessage", chat_id=1, text="x")
    bot.ok("sendMessage", chat_id=2, text="y")
    bot.ok("answerCallbackQuery", callback_query_id="q")
    assert [d["chat_id"] for d in control.deliveries()] == [1, 2]
    assert [d["text"] for d in control.deliveries(chat_id=2)] == ["y"]
    assert control.deliveries(method="copyMessage") == []
    assert control.stats()["deliveries"] == 2
    assert control.callback_answers()[0]["callback_query_id"] == "q"
    control.reset()
    assert control.stats()["deliveries"] == 0 and control.deliveries() == []


def test_send_update_through_control(control, bot):
    receiver = Receiver()
    try:
        bot.ok("setWebhook", url=receiver.url, secret_token="abc")
        answer = control.send_update(kind="callback_query", user_id=5, data="d",
                                     message_chat_id=5, message_id=3)
        assert answer["status"] == 200 and answer["update"]["callback_query"]["data"] == "d"
        status, body = control.post_update(answer["update"])
        assert status == 200 and body == {"ok": True}
        assert control.webhook()["secret_token"] == "abc"
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()


def test_send_update_without_webhook_is_409(control):
    with pytest.raises(SimulatorError, match="409"):
        control.send_update(kind="message", user_id=5, text="x")


def test_unknown_control_endpoint(sim):
    response = requests.get(f"{sim.base_url}/_sim/nope")
    assert response.status_code == 404 and response.json()["ok"] is False


def test_cli_starts_prints_and_stops():
    process = subprocess.Popen(
        [sys.executable, "-m", "app.simulator", "--port", "0", "--token", "42:cli",
         "--latency-ms", "1", "--global-rate", "30", "--no-strict-copy"],
        cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("simulator listening on http://127.0.0.1:")
        base_url = line.rsplit(" ", 1)[1]
        control = SimulatorControl(base_url).wait_ready()
        config = control.config()
        assert config["latency_ms"] == 1 and config["strict_copy"] is False
        me = requests.get(f"{base_url}/bot42:cli/getMe", timeout=5).json()
        assert me["result"]["id"] == 42
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=5) == 0
