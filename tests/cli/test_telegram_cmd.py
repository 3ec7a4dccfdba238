"""`flask telegram ...` over real HTTP to the simulated Bot API."""
import json

import pytest

from app.cli.telegram_cmd import ALLOWED_UPDATES
from app.services import telegram_factory
from tests.conftest import TOKEN, WEBHOOK_SECRET

HOOK = "https://bot.example.com/telegram/webhook"


def assert_clean_failure(result, code: int, *needles: str) -> None:
    """One line on stderr, the given exit code, and never the bot token."""
    assert result.exit_code == code, result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output and TOKEN not in result.output
    for needle in needles:
        assert needle in result.stderr


def test_set_webhook_registers_url_secret_and_update_types(runner, simulator):
    result = runner.invoke(args=["telegram", "set-webhook", HOOK])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["ok"] is True and answer["result"] is True and answer["url"] == HOOK
    hook = simulator.webhook()
    assert hook["url"] == HOOK and hook["secret_token"] == WEBHOOK_SECRET
    assert hook["allowed_updates"] == ["message", "callback_query", "my_chat_member", "chat_member"]

    info = runner.invoke(args=["telegram", "webhook-info"])
    assert info.exit_code == 0
    info = json.loads(info.stdout)
    assert info["url"] == HOOK and info["allowed_updates"] == ALLOWED_UPDATES
    assert WEBHOOK_SECRET not in json.dumps(info)


def test_delete_webhook_clears_it(runner, simulator):
    runner.invoke(args=["telegram", "set-webhook", HOOK])
    result = runner.invoke(args=["telegram", "delete-webhook", "--drop-pending"])
    assert result.exit_code == 0 and json.loads(result.stdout) == {"ok": True, "result": True}
    assert simulator.webhook() is None
    assert json.loads(runner.invoke(args=["telegram", "webhook-info"]).stdout)["url"] == ""


def test_http_url_needs_allow_http(runner, simulator):
    url = "http://127.0.0.1:8080/telegram/webhook"
    result = runner.invoke(args=["telegram", "set-webhook", url])
    assert result.exit_code == 2 and "https://" in result.stderr and "--allow-http" in result.stderr
    assert simulator.webhook() is None
    result = runner.invoke(args=["telegram", "set-webhook", "--allow-http", url])
    assert result.exit_code == 0 and simulator.webhook()["url"] == url


@pytest.mark.parametrize("url", ["bot.example.com/hook", "ftp://bot.example.com/hook", "https://", "hook"])
def test_malformed_url_is_a_usage_error(runner, simulator, url):
    result = runner.invoke(args=["telegram", "set-webhook", "--allow-http", url])
    assert result.exit_code == 2 and "not an absolute URL" in result.stderr
    assert simulator.webhook() is None


def test_revoked_token_is_one_line_and_exit_1(runner, simulator):
    simulator.revoke_token()
    for args in (["set-webhook", HOOK], ["webhook-info"], ["delete-webhook"]):
        assert_clean_failure(runner.invoke(args=["telegram", *args]), 1, "Unauthorized")


def test_unreachable_api_is_one_line_and_exit_1(app, runner):
    runner.invoke(args=["settings", "set", "telegram_max_retries", "0"])
    app.config["TELEGRAM_API_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens on the discard port
    telegram_factory.reset_clients()
    assert_clean_failure(runner.invoke(args=["telegram", "webhook-info"]), 1, "getWebhookInfo failed", "NetworkError")


def test_missing_token_or_bad_secret_is_refused_before_any_call(app, runner, simulator):
    app.config["WEBHOOK_SECRET"] = "has spaces and $"
    assert_clean_failure(runner.invoke(args=["telegram", "set-webhook", HOOK]), 1, "WEBHOOK_SECRET")
    app.config["TELEGRAM_BOT_TOKEN"] = ""
    assert_clean_failure(runner.invoke(args=["telegram", "webhook-info"]), 1, "TELEGRAM_BOT_TOKEN is not set")
    assert simulator.webhook() is None
