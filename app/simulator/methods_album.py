"""copyMessages: copy several messages (an album) to a chat in one call."""

from __future__ import annotations

from app.simulator.errors import bad_request
from app.simulator.methods_send import copied_fields
from app.simulator.params import get_bool, get_chat_id, get_json
from app.simulator.results import Produce
from app.simulator.state import SimState

MAX_IDS = 100


def message_ids(params: dict) -> list[int]:
    """Return message_ids: a JSON array of 1-100 strictly increasing integers, as Telegram demands."""
    ids = get_json(params, "message_ids", "can't parse message identifiers JSON object")
    if not isinstance(ids, list) or not ids:
        raise bad_request("message identifiers are not specified")
    if len(ids) > MAX_IDS or any(type(i) is not int for i in ids):
        raise bad_request("too many messages to copy" if len(ids) > MAX_IDS else "invalid message identifiers")
    if any(b <= a for a, b in zip(ids, ids[1:], strict=False)):
        raise bad_request("message identifiers must be in a strictly increasing order")
    return ids


def copy_messages(state: SimState, params: dict) -> Produce:
    """Copy messages in order (an album stays one album); result is the list of new MessageIds.

    Every part counts against the bot-wide limit; the chat's own pacing counts
    the call once. Each copied part is recorded with the album's number, so a
    test can tell one album from two. A part named in copy_skip for this chat
    is skipped, as Telegram skips a part it cannot copy: the answer then holds
    fewer MessageIds than the call asked for.
    """
    chat_id = get_chat_id(params)
    from_chat_id = get_chat_id(params, "from_chat_id")
    ids = message_ids(params)
    if "reply_markup" in params:
        raise bad_request("copyMessages takes no reply_markup")
    silent, protect = get_bool(params, "disable_notification"), get_bool(params, "protect_content")

    def commit(now: float) -> list[dict]:
        state.check_recipient(chat_id)
        state.check_chat(from_chat_id)
        sources = [state.find_message(from_chat_id, i) for i in ids]
        if any(s is None for s in sources) and state.cfg["strict_copy"]:
            raise bad_request("messages to copy not found")
        skipped = {source_id for skip_chat, source_id in state.cfg["copy_skip"] if skip_chat == chat_id}
        kept = [(i, s) for i, s in zip(ids, sources, strict=True) if i not in skipped]
        if not kept:
            raise bad_request("messages to copy not found")
        state.take_rate(chat_id, False, False, now, parts=len(kept))
        state.albums += 1
        result = []
        for part, (source_id, source) in enumerate(kept):
            msg = state.new_message(chat_id, **copied_fields(source, None, None))
            state.record(now, "copyMessages", msg, ("copy", from_chat_id, source_id), text=msg.text,
                         caption=msg.caption, from_chat_id=from_chat_id, source_message_id=source_id,
                         album=state.albums, part=part, parts=len(kept), silent=silent, protected=protect)
            result.append({"message_id": msg.message_id})
        return result

    return Produce(commit)
