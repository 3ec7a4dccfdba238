"""Rate slots of a broadcast send: the pump's Booker (its own rate, bot-wide, per chat) and the estimate's seconds.

The span rule itself (2k - 1 slots, the k parts at its middle: span_for,
send_slots) lives with the bot-wide budget (app.services.telegram_budget),
whose acquire_parts books a client call's album (a preview, a retry) by it:
this module imports it from there, and the budget never imports the
broadcast package.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from app.services.broadcast.stops import Stop
from app.services.telegram_budget import send_slots, span_for

__all__ = ["DUE_GRACE_SECONDS", "SLOT_HORIZON", "Booker", "Ready", "Slot", "seconds_per_send"]

# "Due now", with a millisecond's grace: the limiter reads the clock again
# after us, so a bare clock() would make every due slot look late.
DUE_GRACE_SECONDS = 0.001
# Bot-wide slots are booked only this far ahead: an item is marked 'sending'
# just before its request, and a /start waits behind at most this much of a
# broadcast's bookings.
SLOT_HORIZON = 0.5

# A send's bot-wide slot: (its monotonic time, when it was booked).
Slot = tuple[float, float]


@dataclass(frozen=True)
class Ready:
    """A send cleared for its request: whether its chat is booked already, and whether its answer moves the chat."""

    chat_taken: bool = False
    rebook: bool = False


class Booker:
    """Books one pump's sends: slots of its own rate, bot-wide slots, each recipient's chat, and the late rule.

    The pump's thread calls take(); each send thread calls wait_for() right
    before its request and after_answer() once it has the answer. None of
    them touches the job's rows: waits keep the lease through ``keep`` and
    ``pause`` and give up when ``stopped`` names a stop the pump met meanwhile.
    """

    def __init__(self, parts: int, *, limiter, budget, pace_chat: Callable | None,
                 rebook_chat: Callable[[Hashable, float], None], clock: Callable[[], float],
                 sleep: Callable[[float], None], deadline: float, heartbeat: float,
                 keep: Callable[[], None], pause: Callable[[float], None], stopped: Callable[[], Stop | None]):
        # Messages one recipient's send puts out (an album's parts): each takes a rate slot.
        self.parts = parts
        self.span = span_for(parts)  # bot-wide slots per send (see _book_shared)
        # The pump's own rate (None: no rate of its own) and the bot-wide lane (None: this process paces alone).
        self.limiter, self.budget = limiter, budget
        # None: recipients' chats are not paced (the paid client).
        self.pace_chat, self.rebook_chat = pace_chat, rebook_chat
        self.clock, self.sleep, self.deadline, self.heartbeat = clock, sleep, deadline, heartbeat
        self.keep, self.pause, self.stopped = keep, pause, stopped

    def take(self, want: int) -> list[Slot | None] | Stop:
        """Wait for the next slot of the pump's own rate, take every slot already due, book them bot-wide.

        Return each send's bot-wide slot (None each when this process paces
        alone), or the stop that came first: Stop.BUDGET when the budget ends,
        else the pump's own stop met while waiting.

        Slots are taken before items are marked 'sending', so an item is in
        flight only once it may really go out: a crash then leaves 'unknown'
        only requests that had actually started. Slots that came due while
        the pump's thread was committing (the limiter's burst credit) are taken
        together, so at high rates one transaction marks several items. The
        same number of slots is then booked on the bot-wide budget in one
        statement (at most SLOT_HORIZON ahead); each send waits for its own.
        """
        limiter = self.limiter
        if limiter is None:
            taken = want
        else:
            # An album's send needs one slot per part: the first send waits for all of them.
            for _ in range(self.parts):
                if stop := self._wait_rate_slot(limiter):
                    return stop
            taken = 1
            # (A send whose parts are only partly due leaves those slots unused: a small loss of rate.)
            while taken < want and all(limiter.acquire(self.clock() + DUE_GRACE_SECONDS)
                                       for _ in range(self.parts)):
                taken += 1
        return self._book_shared(taken)

    def _wait_rate_slot(self, limiter) -> Stop | None:
        """Wait for one slot of the pump's own rate, keeping the lease; the stop that came first, else None."""
        # Bounded by the next heartbeat, so a long 429 hold never outlives the lease.
        while not limiter.acquire(min(self.deadline, self.clock() + self.heartbeat)):
            left = self.deadline - self.clock()
            wait_s = limiter.next_slot_in()
            if left <= DUE_GRACE_SECONDS or wait_s > left:
                return Stop.BUDGET
            self.keep()
            if stop := self.stopped():
                return stop
            if wait_s > self.heartbeat:
                # acquire() gives up at once while the slot is over a heartbeat away (a long
                # 429 hold): sleep under the lease until it is within one, instead of spinning.
                self.pause(wait_s - self.heartbeat)
        return None

    def _book_shared(self, n: int) -> list[Slot | None] | Stop:
        """Book n sends' bot-wide slots (waiting, lease kept, while others hold the timeline)."""
        budget = self.budget
        if budget is None:
            return [None] * n
        while True:
            booked_at = self.clock()
            slots = budget.acquire_many(n * self.span, self.deadline, max_wait=SLOT_HORIZON)
            # A send goes at the middle slot of its span: an album's k parts all
            # arrive at once, so it books k - 1 empty slots on each side of its k
            # (2k - 1 in all). Whichever way a 1 s window cuts the span, it
            # holds at least as many slots as the album puts parts in it, so
            # arrivals stay within cap + 1 even with replies between albums.
            sends = send_slots(slots, self.parts)
            if sends:
                return [(at, booked_at) for at in sends]
            left = self.deadline - self.clock()
            wait_s = budget.next_slot_in()
            if left <= DUE_GRACE_SECONDS or wait_s >= left:
                return Stop.BUDGET
            self.pause(min(max(wait_s - SLOT_HORIZON, 0.01), left))
            if stop := self.stopped():
                return stop

    def wait_for(self, slot: Slot | None, chat: Hashable) -> Ready | None:
        """Sleep to a send's bot-wide slot (in the send's thread), its chat booked first; Ready, or None: held back."""
        if slot is None:
            return Ready()
        at, booked_at = slot
        chat_taken = self.pace_chat is not None
        if chat_taken:
            # The recipient's chat is booked for the slot's time before the
            # sleep (the same sleep waits for both): after waking, only the
            # hold check and the lateness check stand before the request.
            self.pace_chat(chat, self.deadline, not_before=at)
        if (delay := at - self.clock()) > 0:
            self.sleep(delay)
        budget = self.budget
        if not budget.clear_at(at, booked_at, late_ok=True):
            return None  # a 429 recorded after we booked covers this slot: not sent
        if not budget.is_late(at):
            return Ready(chat_taken)
        # This thread woke too late: sends bunched together could break
        # the cap, so it takes a fresh slot (an album: a fresh span) of
        # its own or, with none in time, holds back.
        if self.parts == 1:
            if budget.acquire_slot(self.deadline) is None:
                return None
        else:
            booked_at = self.clock()
            span = budget.acquire_many(self.span, self.deadline, max_wait=SLOT_HORIZON)
            if not span:
                return None
            at = span[self.parts - 1]
            if (delay := at - self.clock()) > 0:
                self.sleep(delay)
            if not budget.clear_at(at, booked_at, late_ok=True):
                return None
        # The chat was booked for the missed slot: its next message (the
        # admin's summary) must wait a whole interval after this one. Moved
        # once the answer is in: no statement stands between a slot and its request.
        return Ready(chat_taken, rebook=chat_taken)

    def after_answer(self, chat: Hashable, ready: Ready) -> None:
        """Move the chat's next slot to a whole interval after this answer, if the send missed its booked chat slot."""
        if ready.rebook:
            # It arrived by its answer, however late this thread ran: the interval counts from there.
            self.rebook_chat(chat, self.clock())

    def slot_wait(self) -> float:
        """Seconds until the next slot of the pump's own rate."""
        return self.limiter.next_slot_in() if self.limiter is not None else 0.0


def seconds_per_send(parts: int, own_rate: float, lane_rate: float) -> float:
    """Return the seconds one recipient's send takes: a slot of its own rate per part, its span on the lane."""
    return max(parts / own_rate, span_for(parts) / lane_rate)
