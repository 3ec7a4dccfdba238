"""A job's content columns from the engine's content dict: a copy, a personalised text or an album."""
from __future__ import annotations

import json

from app.models.broadcast import CONTENT_ALBUM, CONTENT_COPY, CONTENT_TEXT, BroadcastJob
from app.services.broadcast.content import text_rules

ALBUM_MAX_PARTS = 10  # a Telegram album (media group) has at most 10 parts


def content_fields(content: dict) -> dict:
    """Validate the content description and return job columns."""
    kind = content.get("type")
    if kind == CONTENT_COPY:
        try:
            return {"content_type": CONTENT_COPY, "from_chat_id": int(content["from_chat_id"]),
                    "source_message_id": int(content["message_id"])}
        except (KeyError, TypeError, ValueError):
            raise ValueError("copy content needs integer from_chat_id and message_id") from None
    if kind == CONTENT_ALBUM:
        return _album_fields(content)
    if kind == CONTENT_TEXT:
        text = text_rules.check(content.get("text"))  # the HTML Telegram parses, measured as it shows
        return {"content_type": CONTENT_TEXT, "text": text, "parse_mode": content.get("parse_mode") or "HTML"}
    raise ValueError("content type must be 'copy', 'album' or 'text'")


def _album_fields(content: dict) -> dict:
    """Validate an album (1-10 distinct message ids of one chat) and return job columns, ids ascending."""
    try:
        from_chat_id = int(content["from_chat_id"])
        ids = sorted({int(i) for i in content["message_ids"]})
    except (KeyError, TypeError, ValueError):
        raise ValueError("album content needs an integer from_chat_id and a list of integer message_ids") from None
    if not 1 <= len(ids) <= ALBUM_MAX_PARTS or ids[0] < 1:
        raise ValueError(f"an album needs 1 to {ALBUM_MAX_PARTS} positive message ids")
    return {"content_type": CONTENT_ALBUM, "from_chat_id": from_chat_id, "source_message_id": ids[0],
            "source_message_ids": json.dumps(ids)}


def album_ids(job: BroadcastJob) -> list[int]:
    """Return an album job's message ids, ascending."""
    return json.loads(job.source_message_ids or "[]")
