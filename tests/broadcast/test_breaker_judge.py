"""breaker.judge(): the streak, the stops and the trip one step's outcomes call for (pure, no database)."""
import pytest

from app.services.broadcast.sending import outcomes as oc
from app.services.broadcast.sending.breaker import Decision, Streak, judge, kind_of
from app.services.broadcast.sending.stops import Stop

MAX = 3
SENT = oc.OK
SKIP = oc.Outcome(oc.SKIPPED, "Forbidden: bot was blocked by the user", blocked=True)
FAIL = oc.Outcome(oc.FAILED, "Bad Request: message to copy not found")
FAIL2 = oc.Outcome(oc.FAILED, "Bad Request: can't parse entities")
UNKNOWN = oc.Outcome(oc.UNKNOWN, "read timeout")
LONG_NAME = oc.too_long_for(4155, 4096)  # the recipient's own failure
RATE_7 = oc.Outcome(oc.RATE_LIMITED, "Too Many Requests", retry_after=7.0)
RATE_3 = oc.Outcome(oc.RATE_LIMITED, "Too Many Requests", retry_after=3.0)
DOWN = oc.Outcome(oc.NOT_SENT, "connection refused")
NO_SLOT = oc.Outcome(oc.OUT_OF_BUDGET, "rate limit: no slot before deadline")
TOKEN = oc.Outcome(oc.BOT_ERROR, "Unauthorized")
GONE = oc.Outcome(oc.GONE, "Bad Request: message to delete not found")
TOO_OLD = oc.Outcome(oc.TOO_OLD, "Bad Request: message can't be deleted")


def fails(*ids: int, error: str = FAIL.error) -> Streak:
    """A streak of failed items with these ids."""
    return Streak(len(ids), ids, error)


# (name, streak before, outcomes (item ids from 1), pump's stop, already paused -> streak after, decision)
CASES = [
    ("a success clears the streak", fails(7, 8), [SENT], None, False, Streak(), Decision(None)),
    ("a skip clears the streak", fails(7, 8), [SKIP], None, False, Streak(), Decision(None)),
    ("a copy gone clears the streak", fails(7), [GONE], None, False, Streak(), Decision(None)),
    ("a copy too old clears the streak", fails(7), [TOO_OLD], None, False, Streak(), Decision(None)),
    ("a failure counts, with its item", Streak(), [FAIL], None, False, fails(1), Decision(None)),
    ("an unknown counts, without its item", fails(7), [UNKNOWN], None, False,
     Streak(2, (7,), UNKNOWN.error), Decision(None)),
    ("the last error is the newest", Streak(), [FAIL, FAIL2], None, False,
     Streak(2, (1, 2), FAIL2.error), Decision(None)),
    ("a long name neither counts nor clears", fails(7), [LONG_NAME], None, False, fails(7), Decision(None)),
    ("a 429 stops with the longest wait", fails(7), [RATE_3, RATE_7], None, False, fails(7),
     Decision(Stop.RATE_LIMITED, retry_after=7.0)),
    ("a 429 explains the pacer's budget stop", Streak(), [RATE_3], Stop.BUDGET, False, Streak(),
     Decision(Stop.RATE_LIMITED, retry_after=3.0)),
    ("a 429 keeps another stop", Streak(), [RATE_3], Stop.NETWORK, False, Streak(),
     Decision(Stop.NETWORK, retry_after=3.0)),
    ("not sent stops for the network", fails(7), [DOWN], None, False, fails(7), Decision(Stop.NETWORK)),
    ("not sent keeps an earlier stop", Streak(), [DOWN], Stop.PAUSED, False, Streak(), Decision(Stop.PAUSED)),
    ("no slot stops for the budget", Streak(), [NO_SLOT], None, False, Streak(), Decision(Stop.BUDGET)),
    ("no slot keeps an earlier stop", Streak(), [NO_SLOT], Stop.NETWORK, False, Streak(), Decision(Stop.NETWORK)),
    ("a refused token pauses at once", fails(7), [TOKEN], Stop.BUDGET, False, fails(7),
     Decision(Stop.UNAUTHORIZED, pause=Stop.UNAUTHORIZED)),
    ("a refused token pauses once", Streak(), [TOKEN, TOKEN], None, False, Streak(),
     Decision(Stop.UNAUTHORIZED, pause=Stop.UNAUTHORIZED)),
    ("a refused token on a paused job changes nothing", Streak(), [TOKEN], None, True, Streak(), Decision(None)),
    ("one short of the threshold does not trip", Streak(), [FAIL, FAIL], None, False, fails(1, 2), Decision(None)),
    ("the threshold trips, earlier failures included", fails(7, 8), [FAIL], None, False, Streak(),
     Decision(Stop.BREAKER, pause=Stop.BREAKER, trip=fails(7, 8, 1))),
    ("unknowns trip too, without items to reopen", Streak(), [UNKNOWN, UNKNOWN, UNKNOWN], None, False, Streak(),
     Decision(Stop.BREAKER, pause=Stop.BREAKER, trip=Streak(3, (), UNKNOWN.error))),
    ("a trip overrides the stop", fails(7, 8), [FAIL], Stop.NETWORK, False, Streak(),
     Decision(Stop.BREAKER, pause=Stop.BREAKER, trip=fails(7, 8, 1))),
    ("a trip on a paused job keeps its reason", fails(7, 8), [FAIL], None, True, Streak(),
     Decision(Stop.BREAKER, trip=fails(7, 8, 1))),
    ("a trip after a refused token keeps the token's pause", fails(7, 8), [TOKEN, FAIL], None, False, Streak(),
     Decision(Stop.BREAKER, pause=Stop.UNAUTHORIZED, trip=Streak(3, (7, 8, 2), FAIL.error))),
    ("the threshold reached within a step trips, a later success does not undo it", fails(7, 8),
     [FAIL, SENT, FAIL], None, False, Streak(), Decision(Stop.BREAKER, pause=Stop.BREAKER, trip=fails(7, 8, 1))),
    ("a 429 and a trip in one step", fails(7, 8), [RATE_3, FAIL], None, False, Streak(),
     Decision(Stop.BREAKER, retry_after=3.0, pause=Stop.BREAKER, trip=fails(7, 8, 2))),
    ("failures in flight when the breaker opened are not judged", Streak(), [FAIL, FAIL, FAIL], Stop.BREAKER,
     True, Streak(), Decision(Stop.BREAKER)),
    ("unknowns in flight when the breaker opened still count", Streak(), [UNKNOWN], Stop.BREAKER, True,
     Streak(1, (), UNKNOWN.error), Decision(Stop.BREAKER)),
]


@pytest.mark.parametrize("before,outcomes,stop,paused,after,decision", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_judge(before, outcomes, stop, paused, after, decision):
    done = [(i, outcome) for i, outcome in enumerate(outcomes, start=1)]
    assert judge(before, done, stop=stop, paused=paused, max_errors=MAX) == (after, decision)


def test_a_streak_of_one_trips_at_once_with_a_threshold_of_one():
    assert judge(Streak(), [(5, FAIL)], stop=None, paused=False, max_errors=1) == (
        Streak(), Decision(Stop.BREAKER, pause=Stop.BREAKER, trip=fails(5)))


@pytest.mark.parametrize("outcome,stop,kind", [
    (FAIL, Stop.BREAKER, oc.NOT_SENT),  # the breaker's own fault: back to pending, not failed
    (FAIL, None, oc.FAILED),
    (FAIL, Stop.NETWORK, oc.FAILED),
    (UNKNOWN, Stop.BREAKER, oc.UNKNOWN),  # may have been delivered: stays unknown
    (SENT, Stop.BREAKER, oc.SENT),
])
def test_kind_of(outcome, stop, kind):
    assert kind_of(outcome, stop) == kind


@pytest.mark.parametrize("description", ["Bad Request: BALANCE_TOO_LOW", "Bad Request: not enough Stars to send"])
def test_a_paid_copy_the_stars_cannot_pay_goes_back_to_pending_and_pauses_at_once(description):
    from app.telegram.errors import BadRequest

    no_stars = oc.classify(BadRequest("sendMessage", description, error_code=400))
    assert no_stars.kind == oc.NO_STARS and no_stars.kind.status is None and not no_stars.systemic
    # Amid sent copies and a failure: no streak, the job pauses for lack of Stars (once), never the breaker.
    streak, decision = judge(fails(1), [(2, SENT), (3, no_stars), (4, FAIL), (5, no_stars)], stop=None,
                             paused=False, max_errors=MAX)
    assert decision == Decision(Stop.NO_STARS, pause=Stop.NO_STARS) and streak == fails(4)
