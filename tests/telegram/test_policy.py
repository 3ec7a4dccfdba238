"""Pure retry decisions: what is retried, for how long, and what never is."""

import pytest

from app.telegram.errors import (
    BadRequest,
    Forbidden,
    NetworkError,
    RetryAfter,
    Unauthorized,
    UnknownOutcome,
)
from app.telegram.policy import MAX_RATE_LIMIT_WAITS, decide, is_idempotent, is_paced_method

NOW = 100.0


def run(exc, attempt=0, deadline=None, retry_unknown=False):
    return decide(exc, attempt, now=NOW, deadline=deadline, max_retries=2, backoff=0.5,
                  retry_unknown=retry_unknown)


@pytest.mark.parametrize("method", ["getMe", "getChatMember", "getWebhookInfo", "editMessageText",
                                    "editMessageReplyMarkup", "deleteMessage", "deleteWebhook",
                                    "setWebhook", "answerCallbackQuery"])
def test_idempotent_methods(method):
    assert is_idempotent(method)


@pytest.mark.parametrize("method", ["sendMessage", "sendPhoto", "copyMessage", "forwardMessage",
                                    "copyMessages"])
def test_message_producing_methods_are_not_idempotent(method):
    assert not is_idempotent(method)
    assert is_paced_method(method)


def test_edits_are_paced_but_deletes_and_getters_are_not():
    assert is_paced_method("editMessageText")
    assert not is_paced_method("deleteMessage") and not is_paced_method("getMe")


def test_retry_after_waits_when_it_fits_the_deadline():
    assert run(RetryAfter("m", 3), deadline=NOW + 3).delay == 3
    assert not run(RetryAfter("m", 3), deadline=NOW + 2.9).retry
    assert run(RetryAfter("m", 30)).retry
    assert not run(RetryAfter("m", 61)).retry


def test_429_waits_within_a_deadline_do_not_use_max_retries_but_are_capped():
    far = NOW + 10_000
    assert run(RetryAfter("m", 1), attempt=5, deadline=far).retry
    assert not run(RetryAfter("m", 1), attempt=MAX_RATE_LIMIT_WAITS, deadline=far).retry


def test_429_waits_without_a_deadline_stop_at_max_retries():
    assert run(RetryAfter("m", 1), attempt=1).retry
    assert not run(RetryAfter("m", 1), attempt=2).retry


def test_network_errors_back_off_exponentially_within_deadline():
    assert run(NetworkError("m", "x"), attempt=0).delay == 0.5
    assert run(NetworkError("m", "x"), attempt=1).delay == 1.0
    assert not run(NetworkError("m", "x"), attempt=2).retry
    assert not run(NetworkError("m", "x"), attempt=1, deadline=NOW + 0.9).retry


def test_unknown_outcome_only_retried_when_allowed():
    assert not run(UnknownOutcome("m", "read timeout")).retry
    assert run(UnknownOutcome("m", "read timeout"), retry_unknown=True).delay == 0.5


@pytest.mark.parametrize("exc", [BadRequest("m", "x", 400), Forbidden("m", "x", 403),
                                 Unauthorized("m", "x", 401)])
def test_verdicts_are_never_retried(exc):
    assert not run(exc, retry_unknown=True).retry
