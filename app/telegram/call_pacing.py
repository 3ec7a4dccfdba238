"""Take a call's slots before it goes out: its chat's, the broadcast's own rate, the bot-wide budget's."""

from __future__ import annotations

from typing import Any

from app.telegram.errors import ChatBusy, RetryAfter
from app.telegram.policy import is_counted_method

# A low-priority call (a progress edit) takes a bot-wide slot only if one is
# free this soon; otherwise it is refused (the outbox keeps it for later).
LOW_PRIORITY_WAIT = 0.05
LOW = "low"
# A call sent this much later than its chat slot moves the chat's next slot along.
CHAT_SLIP_SECONDS = 0.02
# Telegram takes about a message a second in a private chat. A reply booked
# exactly a second after the one before reaches the chat closer than that
# whenever the earlier one is held up after its booking (a worker woken late on a
# busy host, network jitter, the far side's queue): replies to one user's chat
# are spaced this share of the interval more (a quarter second), so such a delay
# costs no per-chat 429. Broadcasts write once to each recipient and keep the plain second.
REPLY_CHAT_MARGIN = 0.25


class CallPacing:
    """Mixin of TelegramClient's waits for slots; the host provides the pacers, the budgets and ``clock``."""

    def _pace(self, method: str, chat: Any, deadline: float | None, broadcast: bool,
              priority: str | None, slots: int = 1, chat_wait: float | None = None) -> bool:
        """Wait for the chat's slot, the broadcast's own rate and bot-wide slots; raise RetryAfter if none in time.

        ``slots``: how many messages the call puts in front of the user (an
        album's parts); each takes a rate slot and a bot-wide slot, the chat one.
        True when the bot-wide wait kept the call well past its chat slot.
        """
        lane = self.broadcast_budget if broadcast else self.budget if is_counted_method(method) else None
        if priority == LOW:
            # A low-priority call asks the busy budget first: a chat slot taken
            # and then refused a bot-wide slot would hold its chat for nothing.
            self._take_budget(method, lane, deadline, priority)
            self._take_chat(method, chat, deadline, broadcast, max_wait=chat_wait)
            return False
        # The chat goes first: a bot-wide slot taken and then spent waiting on
        # a busy chat would be lost to every other call.
        asked = self.clock()
        booked = self._take_chat(method, chat, deadline, broadcast, max_wait=chat_wait)
        # A reply is late from its booked slot, not from when its wait ended: a thread
        # that wakes late on a busy machine sends late, maybe after the chat's next slot was booked.
        chat_slot = self.clock() if broadcast or booked is None else max(booked, asked)
        for _ in range(slots if broadcast and self.rate_limiter is not None else 0):
            if not self.rate_limiter.acquire(deadline):
                raise RetryAfter(method, self.rate_limiter.next_slot_in(),
                                 "rate limit: no slot before deadline", error_code=None)
        self._take_budget(method, lane, deadline, priority, slots)
        slipped = self.clock() - chat_slot > CHAT_SLIP_SECONDS and (self.pace_recipients or not broadcast)
        if slipped and not broadcast:
            self._refuse_if_chat_rebooked(method, chat, chat_slot, chat_wait)
        return slipped

    def _refuse_if_chat_rebooked(self, method: str, chat: Any, chat_slot: float, chat_wait: float | None) -> None:
        """Refuse a call the bot-wide wait held past its chat slot if the chat's next slot was booked meanwhile.

        Another process (a second reply to a chat writing fast) booked the slot
        one interval after ours while this call waited: sent now, the two would
        reach the chat less than an interval apart (a per-chat 429). Nothing
        goes out; like a busy chat, the call is tried again later.
        """
        if chat is None or self.chat_pacer is None:
            return
        interval = self.chat_pacer.interval_for(chat) + self._chat_extra(chat, False)
        latest = self.chat_pacer.ready_at(chat) - interval  # the chat's latest booked slot (or a hold's end)
        if latest <= chat_slot + CHAT_SLIP_SECONDS:
            return  # still ours: the caller moves the chat's next slot along after the send
        wait = max(0.0, latest + interval - self.clock())
        if chat_wait is not None:
            raise ChatBusy(method, wait)
        raise RetryAfter(method, wait, "chat pacing: the chat's next slot was taken meanwhile", error_code=None)

    def pace_chat(self, chat: Any, deadline: float | None, not_before: float | None = None) -> None:
        """Book a broadcast recipient's chat slot, not before ``not_before``, and sleep until it; RetryAfter if none."""
        self._take_chat("pace", chat, deadline, True, not_before)

    def rebook_chat(self, chat: Any, at: float, extra: float = 0.0) -> None:
        """Say a chat's booked message goes at ``at`` (later than booked): its next one waits a whole interval.

        ``extra``: seconds beyond the interval (a reply's margin, _chat_extra).
        """
        if self.chat_pacer is not None and chat is not None:
            self.chat_pacer.block_until(chat, at + self.chat_pacer.interval_for(chat) + extra)

    def _chat_extra(self, chat: Any, broadcast: bool) -> float:
        """Seconds a message holds its chat past the interval (a reply to a user: REPLY_CHAT_MARGIN of it)."""
        if self.chat_pacer is None or broadcast or not (isinstance(chat, int) and chat > 0):
            return 0.0
        return self.chat_pacer.interval_for(chat) * REPLY_CHAT_MARGIN

    def _take_chat(self, method: str, chat: Any, deadline: float | None, broadcast: bool,
                   not_before: float | None = None, max_wait: float | None = None) -> float | None:
        """Wait for the chat's next slot and return its time (None: not paced); ChatBusy past max_wait.

        A paid broadcast's recipients are not paced.
        """
        if chat is None or self.chat_pacer is None or not (self.pace_recipients or not broadcast):
            return None
        soon = None if max_wait is None else self.clock() + max_wait
        capped = soon is not None and (deadline is None or soon < deadline)
        limit = soon if capped else deadline
        slot = self.chat_pacer.acquire_slot(chat, limit, not_before, margin=self._chat_extra(chat, broadcast))
        if slot is None:
            wait = self.chat_pacer.ready_at(chat) - self.clock()
            if capped:
                raise ChatBusy(method, max(0.0, wait))
            raise RetryAfter(method, max(0.0, wait), "chat pacing: no slot before deadline", error_code=None)
        return slot

    def _take_budget(self, method: str, lane: Any, deadline: float | None, priority: str | None,
                     parts: int = 1) -> None:
        """Take the bot-wide slots of a call putting ``parts`` messages out (low priority: only one free at once).

        Several parts (copyMessages) arrive together: a shared lane books them
        as one span and sends at its middle (acquire_parts, as the pump does);
        a process-local lane takes them one by one.
        """
        if lane is None:
            return
        max_wait = LOW_PRIORITY_WAIT if priority == LOW else None
        if parts > 1 and hasattr(lane, "acquire_parts"):
            taken = lane.acquire_parts(parts, deadline, max_wait) is not None
        else:
            taken = all(lane.acquire(deadline, max_wait=max_wait) for _ in range(parts))
        if not taken:
            # A low-priority call is refused often (at every progress tick of a broadcast at the
            # cap): its next try is scheduled from this process's own bookings, with no read.
            hint = getattr(lane, "next_slot_hint", None) if priority == LOW else None
            wait = hint() if hint is not None else lane.next_slot_in()
            raise RetryAfter(method, max(wait, LOW_PRIORITY_WAIT), "bot-wide budget: no slot in time", error_code=None)

    def _spread_flood(self, exc: RetryAfter, chat: Any) -> None:
        """Tell the pacers about a 429: Telegram's retry_after holds the whole bot, in every process."""
        until = self.clock() + exc.retry_after
        if self.budget is not None:
            self.budget.block_until(until)
        if self.rate_limiter is not None:
            self.rate_limiter.block_until(until)
        if self.chat_pacer is not None and chat is not None:
            self.chat_pacer.block_until(chat, until)


def slots_for(method: str, payload: dict[str, Any]) -> int:
    """Return how many messages a call puts in front of the user: one per copied id, else one."""
    if method == "copyMessages":
        return max(len(payload.get("message_ids") or ()), 1)
    return 1
