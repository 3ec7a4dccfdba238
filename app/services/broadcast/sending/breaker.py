"""The circuit breaker and the stops one step's outcomes call for (pure); the Recorder writes what it decides.

judge() folds a step's outcomes into the error streak and returns the
pump's stop, the longest 429 wait, a pause to write, and, when the streak
reaches the threshold, the streak itself: its failed items go back to pending.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from app.services.broadcast.sending import outcomes as oc
from app.services.broadcast.sending.stops import Stop

# Answers that pause the job at once, for a reason every later copy would meet too.
PAUSING = {oc.BOT_ERROR: Stop.UNAUTHORIZED, oc.NO_STARS: Stop.NO_STARS}
# The text each such pause is written with (app.texts).
PAUSE_TEXTS = {Stop.UNAUTHORIZED: "reason_unauthorized", Stop.NO_STARS: "reason_no_stars"}


@dataclass(frozen=True)
class Streak:
    """Failures in a row that say nothing about their recipients."""

    errors: int = 0
    failed: tuple[int, ...] = ()  # its items that ended 'failed' (reopened if it trips the breaker)
    last_error: str = ""


@dataclass(frozen=True)
class Decision:
    """What one step's outcomes mean for the pump and the job."""

    stop: Stop | None              # the pump's stop after them (the one it had, unless they call for another)
    retry_after: float = 0.0       # the longest 429 wait among them (0: none)
    pause: Stop | None = None      # pause the job for this reason (UNAUTHORIZED, NO_STARS, BREAKER); None: none new
    trip: Streak | None = None     # the streak that opened the breaker: its failed items go back to pending


def kind_of(outcome: oc.Outcome, stop: Stop | None) -> oc.OutcomeKind:
    """Return the kind an outcome is recorded as: a failure in flight when the breaker opened is its fault, not sent."""
    if outcome.kind == oc.FAILED and stop == Stop.BREAKER:
        return oc.NOT_SENT
    return outcome.kind


def judge(streak: Streak, done: Iterable[tuple[int, oc.Outcome]], *, stop: Stop | None, paused: bool,
          max_errors: int) -> tuple[Streak, Decision]:
    """Judge one step's (item id, outcome) pairs in order, given the pump's stop and whether the job already pauses.

    The breaker trips when the streak reaches the threshold anywhere in the
    step (a success later in the same step does not undo it: a block's step
    judges a second of answers at once); the step's writes are one transaction.
    """
    retry_after, pause, tripped = 0.0, None, None
    for item_id, outcome in done:
        kind = outcome.kind
        if kind_of(outcome, stop) != kind:
            continue  # the breaker's own fault, already judged
        if kind.clears_streak:
            streak = Streak()
        elif outcome.systemic:
            failed = (*streak.failed, item_id) if kind == oc.FAILED else streak.failed
            streak = Streak(streak.errors + 1, failed, outcome.error or "")
            if tripped is None and streak.errors >= max_errors:
                tripped = streak
        elif kind == oc.RATE_LIMITED:
            # Telegram's 429 explains a "budget" stop seen first by our own pacer.
            stop = Stop.RATE_LIMITED if stop in (None, Stop.BUDGET) else stop
            retry_after = max(retry_after, outcome.retry_after)
        elif kind == oc.NOT_SENT:
            stop = stop or Stop.NETWORK
        elif kind == oc.OUT_OF_BUDGET:
            stop = stop or Stop.BUDGET
        elif kind in PAUSING and not paused:
            stop = pause = PAUSING[kind]
            paused = True
    if tripped is None:
        return streak, Decision(stop, retry_after, pause)
    return Streak(), Decision(Stop.BREAKER, retry_after, pause if paused else Stop.BREAKER, trip=tripped)


class AnswerWatch:
    """Judges a pump's answers as they come, in memory: warned once they call for a stop the next step will write.

    The breaker's streak, a 429, Telegram unreachable, a refused token: the
    next step writes and decides it (pausing the job), but a block would
    otherwise send on for up to a second first.
    """

    def __init__(self, max_errors: int, go_on: frozenset):
        self.max_errors, self.go_on = max_errors, go_on  # go_on: the stops after which sends still go
        self.streak = Streak()
        self.warned = False

    def see(self, answered: list) -> bool:
        """Judge (item id, user id, outcome) answers; return True once any of them calls for a stop."""
        if answered and not self.warned:
            judged = [(item_id, outcome) for item_id, _, outcome in answered]
            self.streak, decision = judge(self.streak, judged, stop=None, paused=False, max_errors=self.max_errors)
            self.warned = decision.stop not in self.go_on
        return self.warned
