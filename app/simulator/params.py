"""Read Bot API parameters from a query string, JSON, form or multipart body."""

from __future__ import annotations

import json
import zlib
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import parse_qsl

from app.simulator.errors import CHAT_NOT_FOUND, ApiError, bad_request

# Public usernames map to stable channel-like ids so "@name" works everywhere.
_USERNAME_BASE = -1_000_000_000_000


def parse_params(query: str, content_type: str, body: bytes) -> dict[str, Any]:
    """Merge query-string and body parameters; the body wins; nulls are dropped."""
    params: dict[str, Any] = dict(parse_qsl(query, keep_blank_values=True)) if query else {}
    if body:
        params.update(_parse_body(content_type.lower(), body))
    # JSON clients often send "parse_mode": null meaning "not given".
    return {k: v for k, v in params.items() if v is not None}


def _parse_body(content_type: str, body: bytes) -> dict[str, Any]:
    """Decode one request body according to its content type."""
    if content_type.startswith("application/json"):
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise bad_request(f"can't parse JSON request body: {exc}") from None
        if not isinstance(data, dict):
            raise bad_request("JSON request body must be an object")
        return data
    if content_type.startswith("multipart/form-data"):
        return _parse_multipart(content_type, body)
    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except UnicodeDecodeError:
        raise bad_request("request body is not valid UTF-8") from None


class Upload(str):
    """An uploaded file: compares as its placeholder file id, and keeps its name and bytes."""

    filename: str
    data: bytes


def _upload(filename: str, payload: bytes) -> Upload:
    """Return the placeholder file id of an upload, carrying the file."""
    upload = Upload(f"sim-upload-{zlib.crc32(payload):08x}")
    upload.filename, upload.data = filename, payload
    return upload


def _parse_multipart(content_type: str, body: bytes) -> dict[str, Any]:
    """Decode multipart fields; uploaded files become a placeholder file id (an Upload)."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + body)
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        if part.get_filename():
            fields[name] = _upload(part.get_filename(), payload)
        else:
            fields[name] = payload.decode("utf-8", "replace")
    return fields


def get_str(params: dict, key: str) -> str | None:
    """Return a parameter as text, or None when absent."""
    value = params.get(key)
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def get_int(params: dict, key: str, required: bool = True) -> int | None:
    """Return an integer parameter; 400 when required and missing or not a number."""
    value = params.get(key)
    if value is None or value == "":
        if required:
            raise bad_request(f"{key} is empty")
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request(f"invalid {key} specified") from None


def get_bool(params: dict, key: str) -> bool:
    """Return a boolean parameter (JSON bool or "true"/"1" text)."""
    value = params.get(key)
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1")
    return bool(value)


def get_json(params: dict, key: str, error: str) -> Any:
    """Return a structured parameter given as an object or as JSON text."""
    value = params.get(key)
    if not isinstance(value, str):
        return value
    if value == "":
        return None
    try:
        return json.loads(value)
    except ValueError:
        raise bad_request(error) from None


def get_chat_id(params: dict, key: str = "chat_id") -> int:
    """Return a chat id from an int, a numeric string or "@username"."""
    value = params.get(key)
    if value is None or value == "":
        raise bad_request(f"{key} is empty")
    return resolve_chat_id(value)


def resolve_chat_id(value: Any) -> int:
    """Map an id or "@username" to the integer id the simulator stores."""
    if isinstance(value, bool):
        raise ApiError(400, CHAT_NOT_FOUND)
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text.startswith("@") and len(text) > 1:
        return _USERNAME_BASE - zlib.crc32(text[1:].lower().encode())
    try:
        return int(text)
    except ValueError:
        raise ApiError(400, CHAT_NOT_FOUND) from None
