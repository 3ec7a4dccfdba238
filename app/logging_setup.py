"""Logging to stderr with request context, and redaction of every secret."""
from __future__ import annotations

import contextvars
import logging
import sys
import traceback

_secrets: set[str] = set()
log_context: contextvars.ContextVar[str] = contextvars.ContextVar("log_context", default="-")
REDACTED = "[REDACTED]"
# A shorter value would blank ordinary words and numbers all over the log; every
# real secret (a bot token, a generated webhook or pump secret) is far longer.
MIN_SECRET_CHARS = 4


def register_secrets(*values: str | None) -> None:
    """Remember secret values that must never be printed."""
    for value in values:
        if value and len(value) >= MIN_SECRET_CHARS:
            _secrets.add(value)


def redact(text: str) -> str:
    """Replace every registered secret in text."""
    for secret in sorted(_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


class ContextFilter(logging.Filter):
    """Attach the current update id / request path to each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.ctx = log_context.get()
        return True


class RedactingFilter(logging.Filter):
    """Redact a record in place, so handlers we did not install print no secret either."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = redact(record.getMessage())
        record.args = ()
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set: redact the traceback once, here.
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        return True


class RedactingFormatter(logging.Formatter):
    """Format, then redact, so messages, arguments and tracebacks are all covered."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def configure_logging(level: str = "INFO") -> None:
    """Install one redacting stderr handler on the root logger (idempotent).

    Hosts may have configured logging first: Passenger's WSGI loader calls
    logging.basicConfig(), whose plain stderr handler would print every line
    a second time, unredacted. Such console handlers are replaced by ours;
    any other handler (a file, a test's capture) gets the redacting filter.
    """
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_update_pack", False):
            continue
        if type(handler) is logging.StreamHandler and handler.stream in (sys.stderr, sys.stdout):
            root.removeHandler(handler)
        elif not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
    for handler in root.handlers:
        if getattr(handler, "_update_pack", False):
            handler.setLevel(level)
            return
    handler = logging.StreamHandler(sys.stderr)
    handler._update_pack = True
    handler.setLevel(level)
    handler.addFilter(ContextFilter())
    handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s [%(ctx)s] %(message)s"))
    root.addHandler(handler)
    root.setLevel(min(root.level or logging.WARNING, handler.level))
    # urllib3 logs each request URL, which contains the bot token; keep it quiet too.
    logging.getLogger("urllib3").setLevel(logging.WARNING)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
