"""Turn the transport's answer for one recipient into an item outcome (pure)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from app.models.broadcast import ItemStatus, StrValueEnum
from app.telegram.errors import (
    BadRequest,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    Unauthorized,
    UnknownOutcome,
    is_not_modified,
    is_recipient_error,
    is_stars_shortage,
)


class OutcomeKind(StrValueEnum):
    """What one send's answer means: the item status it ends in (None: back to pending) and the breaker."""

    SENT = "sent", ItemStatus.SENT, False
    SKIPPED = "skipped", ItemStatus.SKIPPED, False  # about the recipient: blocked, deactivated, chat not found
    FAILED = "failed", ItemStatus.FAILED, True     # Telegram refused this message; never retried in the loop
    UNKNOWN = "unknown", ItemStatus.UNKNOWN, True  # sent, no verdict: may have been delivered, never re-sent
    RATE_LIMITED = "rate_limited", None, False     # not sent: back to pending, later pumps wait out not_before
    NOT_SENT = "not_sent", None, False             # never left (network down): back to pending
    BOT_ERROR = "bot_error", None, False           # the token is refused: back to pending, the job pauses
    NO_STARS = "no_stars", None, False             # a paid copy the Stars balance cannot pay: pending, job pauses
    OUT_OF_BUDGET = "out_of_budget", None, False   # our own pacer had no slot before the deadline: back to pending
    HELD = "held", None, False                     # a 429 seen by another process covers its slot: pending, go on
    GONE = "gone", ItemStatus.GONE, False          # action jobs: the copy to delete or edit no longer exists
    TOO_OLD = "too_old", ItemStatus.TOO_OLD, False  # action jobs: older than 48 hours, Telegram refuses to delete it

    def __new__(cls, value: str, status: ItemStatus | None, breaker: bool):
        member = str.__new__(cls, value)
        member._value_ = value
        member.status = status    # the item's final status; None: certainly not sent, back to pending
        member.breaker = breaker  # a failure that says nothing about the recipient counts toward the breaker
        return member

    @property
    def clears_streak(self) -> bool:
        """True when the answer is final and not the bot's failure (it ends a breaker streak)."""
        return self.status is not None and not self.breaker


SENT, SKIPPED, FAILED, UNKNOWN = OutcomeKind.SENT, OutcomeKind.SKIPPED, OutcomeKind.FAILED, OutcomeKind.UNKNOWN
RATE_LIMITED, NOT_SENT, BOT_ERROR = OutcomeKind.RATE_LIMITED, OutcomeKind.NOT_SENT, OutcomeKind.BOT_ERROR
NO_STARS = OutcomeKind.NO_STARS
OUT_OF_BUDGET, HELD = OutcomeKind.OUT_OF_BUDGET, OutcomeKind.HELD
GONE, TOO_OLD = OutcomeKind.GONE, OutcomeKind.TOO_OLD

# Telegram's answers that say a copy cannot be acted on (matched in lower case).
GONE_PHRASES = ("message to delete not found", "message to edit not found", "message to pin not found",
                "message to unpin not found")
TOO_OLD_PHRASES = ("message can't be deleted",)


@dataclass(frozen=True)
class Outcome:
    """What happened to one send."""

    kind: OutcomeKind
    error: str | None = None
    retry_after: float = 0.0
    blocked: bool = False
    # The recipient's copy, for a sent item (copyMessage answers {message_id}, sendMessage a Message).
    message_id: int | None = None
    # An album's copies, one per part delivered (copyMessages skips a part it cannot copy).
    message_ids: tuple[int, ...] | None = None
    # A failure of this recipient's own content (a greeting whose name makes the text too long).
    personal: bool = False

    @property
    def systemic(self) -> bool:
        """True when the failure says nothing about the recipient (counts toward the breaker)."""
        return self.kind.breaker and not self.personal


OK = Outcome(SENT)
HELD_BACK = Outcome(HELD, "held back by the bot-wide budget (a 429 hold, or its slot passed)")


def delivered(result: object) -> Outcome:
    """Return the sent outcome carrying the message id Telegram answered with (None if it gave none).

    An album (copyMessages answers a list of MessageIds) keeps its first part's id
    and every part's id (fewer than the album's parts when Telegram skipped one).
    """
    if isinstance(result, list):
        parts = tuple(r.get("message_id") for r in result if isinstance(r, dict))
        if not parts or any(type(i) is not int for i in parts):
            return OK
        return Outcome(SENT, message_id=parts[0], message_ids=parts)
    message_id = result.get("message_id") if isinstance(result, dict) else None
    return Outcome(SENT, message_id=message_id) if type(message_id) is int else OK


def too_long_for(length: int, limit: int) -> Outcome:
    """Return the failure of one personal copy longer than Telegram takes (never sent, not the bot's fault)."""
    return Outcome(FAILED, f"message is too long with this recipient's name: {length} of {limit} characters",
                   personal=True)


def no_variant_text(variant: str | None) -> Outcome:
    """Return the failure of an edit's copy whose language variant got no new text (never edited with another's)."""
    return Outcome(FAILED, f"no new text for this copy's language variant ({variant or 'default'})", personal=True)


def personal_failure(outcome: Outcome) -> Outcome:
    """Mark Telegram's "message is too long" for one personal copy as that recipient's own (not the breaker's)."""
    if outcome.kind == FAILED and "too long" in (outcome.error or "").lower():
        return replace(outcome, personal=True)
    return outcome


def classify(exc: BaseException | None) -> Outcome:
    """Map a send's exception (or None for success) to an Outcome."""
    if exc is None:
        return OK
    if isinstance(exc, RetryAfter) and exc.error_code is None:
        # Raised by our pacer before sending: the budget ended, Telegram said nothing.
        return Outcome(OUT_OF_BUDGET, exc.description)
    if isinstance(exc, RetryAfter):
        return Outcome(RATE_LIMITED, exc.description, retry_after=float(exc.retry_after))
    if isinstance(exc, Unauthorized):
        return Outcome(BOT_ERROR, exc.description)
    if isinstance(exc, Forbidden):
        return Outcome(SKIPPED, exc.description, blocked=True)
    if is_stars_shortage(exc):
        # Telegram delivered nothing: the copy is sent later, once the balance is topped up.
        return Outcome(NO_STARS, exc.description)
    if isinstance(exc, BadRequest) and is_recipient_error(exc):
        return Outcome(SKIPPED, exc.description)
    if isinstance(exc, NetworkError):
        return Outcome(NOT_SENT, exc.description)
    if isinstance(exc, UnknownOutcome):
        return Outcome(UNKNOWN, exc.description)
    if isinstance(exc, TelegramError):
        return Outcome(FAILED, exc.description)
    return Outcome(FAILED, f"internal error: {type(exc).__name__}")


def classify_action(exc: BaseException | None, repeatable: bool = True) -> Outcome:
    """Map a delete's or an edit's exception (None for success) to an Outcome.

    "Not found" means the copy is already gone, "can't be deleted" that it is
    older than 48 hours, and "not modified" that the copy already reads so
    (counted done). An unknown outcome goes back to pending when repeating is
    harmless (a delete, an edit, an unpin); a pin's is unknown, never repeated.
    """
    if exc is None:
        return OK
    if is_not_modified(exc):
        return OK
    description = (getattr(exc, "description", "") or "").lower()
    if isinstance(exc, BadRequest) and any(p in description for p in GONE_PHRASES):
        return Outcome(GONE, exc.description)
    if isinstance(exc, BadRequest) and any(p in description for p in TOO_OLD_PHRASES):
        return Outcome(TOO_OLD, exc.description)
    if isinstance(exc, UnknownOutcome) and repeatable:
        return Outcome(NOT_SENT, exc.description)
    return classify(exc)
