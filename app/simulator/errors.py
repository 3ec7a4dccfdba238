"""Bot API failures and the exact texts Telegram answers with."""

from __future__ import annotations

import math

BLOCKED = "Forbidden: bot was blocked by the user"
DEACTIVATED = "Forbidden: user is deactivated"
CHAT_NOT_FOUND = "Bad Request: chat not found"
UNAUTHORIZED = "Unauthorized"
NOT_FOUND = "Not Found"
NOT_MODIFIED = ("Bad Request: message is not modified: specified new message content and "
                "reply markup are exactly the same as a current content and reply markup "
                "of the message")
INTERNAL = "Internal Server Error"
BAD_GATEWAY_HTML = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n"
    b"</body>\r\n</html>\r\n"
)


class ApiError(Exception):
    """A Bot API failure, answered as ``{"ok": false, ...}``."""

    def __init__(self, code: int, description: str, parameters: dict | None = None,
                 kind: str | None = None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters
        # kind tells the stats which limit or fault produced a 429/5xx.
        self.kind = kind

    def payload(self) -> dict:
        """Return the JSON body Telegram sends for this error."""
        body = {"ok": False, "error_code": self.code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(text: str) -> ApiError:
    """Build a 400 with Telegram's "Bad Request: " prefix."""
    return ApiError(400, f"Bad Request: {text}")


def too_many_requests(wait: float, kind: str) -> ApiError:
    """Build a 429 whose retry_after is whole seconds, at least 1."""
    retry = max(1, math.ceil(wait - 1e-9))
    return ApiError(429, f"Too Many Requests: retry after {retry}",
                    {"retry_after": retry}, kind=kind)
