"""classify(): every transport answer maps to the right item outcome (pure)."""
import pytest

from app.services.broadcast.sending import outcomes as oc
from app.telegram.errors import (
    BadRequest,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    Unauthorized,
    UnknownOutcome,
)


@pytest.mark.parametrize("exc,kind,systemic,back", [
    (None, oc.SENT, False, False),
    (Forbidden("copyMessage", "Forbidden: bot was blocked by the user", error_code=403), oc.SKIPPED, False, False),
    (Forbidden("copyMessage", "Forbidden: user is deactivated", error_code=403), oc.SKIPPED, False, False),
    (BadRequest("copyMessage", "Bad Request: chat not found", error_code=400), oc.SKIPPED, False, False),
    (BadRequest("copyMessage", "Bad Request: message to copy not found", error_code=400), oc.FAILED, True, False),
    (BadRequest("sendMessage", "Bad Request: can't parse entities", error_code=400), oc.FAILED, True, False),
    (UnknownOutcome("sendMessage", "read timeout"), oc.UNKNOWN, True, False),
    (RetryAfter("sendMessage", 7.0), oc.RATE_LIMITED, False, True),
    (RetryAfter("sendMessage", 0.2, "rate limit: no slot before deadline", error_code=None),
     oc.OUT_OF_BUDGET, False, True),
    (NetworkError("sendMessage", "connection refused"), oc.NOT_SENT, False, True),
    (Unauthorized("sendMessage", "Unauthorized", error_code=401), oc.BOT_ERROR, False, True),
    (TelegramError("sendMessage", "Conflict", error_code=409), oc.FAILED, True, False),
    (ValueError("bug"), oc.FAILED, True, False),
])
def test_classify(exc, kind, systemic, back):
    outcome = oc.classify(exc)
    assert outcome.kind == kind
    assert outcome.systemic is systemic
    assert (outcome.kind.status is None) is back


def test_blocked_users_are_flagged_and_rate_limits_carry_their_wait():
    assert oc.classify(Forbidden("m", "Forbidden: bot was blocked by the user", error_code=403)).blocked
    assert not oc.classify(BadRequest("m", "Bad Request: chat not found", error_code=400)).blocked
    assert oc.classify(RetryAfter("m", 7.0)).retry_after == 7.0


def test_telegrams_too_long_for_a_personal_copy_is_that_recipients_own_failure():
    from app.services.broadcast.sending import outcomes as oc
    from app.telegram.errors import BadRequest

    answer = oc.classify(BadRequest("sendMessage", "Bad Request: message is too long"))
    assert answer.kind == oc.FAILED and answer.systemic  # the same text for everyone: the bot's fault
    own = oc.personal_failure(answer)
    assert own.kind == oc.FAILED and not own.systemic  # one recipient's name made it too long
    other = oc.classify(BadRequest("sendMessage", "Bad Request: can't parse entities"))
    assert oc.personal_failure(other).systemic
