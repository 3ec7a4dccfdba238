"""Classify a failed HTTP attempt: provably never sent (retryable) or maybe sent (unknown)."""

from __future__ import annotations

import os
import ssl

from urllib3.exceptions import (
    ConnectTimeoutError,
    LocationValueError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
    SSLError,
)
from urllib3.util.ssl_match_hostname import CertificateError

from app.telegram.errors import NetworkError, TelegramError, UnknownOutcome

# The module whose connect() sets up TCP, a proxy tunnel and the TLS handshake.
_URLLIB3_CONNECTION = os.path.join("urllib3", "connection.py")
# A real failure wraps a handful of exceptions; a pathological chain (each one
# wrapping a new one) is cut here rather than walked without end.
MAX_CHAIN = 32


def translate(method: str, exc: Exception) -> TelegramError:
    """Map a failed urllib3 attempt to NetworkError (provably not sent) or UnknownOutcome (maybe sent)."""
    if isinstance(exc, LocationValueError):
        # Raised while choosing the connection pool, before any connection.
        return NetworkError(method, "invalid base URL")
    chain = _chain(exc)
    before_write = _before_write(chain)
    if before_write is not None:
        return NetworkError(method, before_write)
    # Everything below may have reached Telegram: urllib3 raises the same
    # SSLError, ReadTimeout or ProtocolError whether the TLS stream, the socket
    # or the server broke before or after our request went out.
    if isinstance(exc, ReadTimeoutError):
        return UnknownOutcome(method, "read timeout")
    if any(isinstance(err, (SSLError, ssl.SSLError)) for err in chain):
        return UnknownOutcome(method, "TLS error; the request may have been sent")
    if any(isinstance(err, ProtocolError) for err in chain):
        return UnknownOutcome(method, "connection closed before the response")
    # Unknown shapes are treated as "maybe sent": a duplicate is worse than a miss.
    return UnknownOutcome(method, f"request failed ({type(exc).__name__})")


def _before_write(chain: list[BaseException]) -> str | None:
    """Return why the request provably never left (no byte of it written), or None."""
    for err in chain:
        # NewConnectionError subclasses ConnectTimeoutError; only a real timeout counts here.
        if isinstance(err, ConnectTimeoutError) and not isinstance(err, NewConnectionError):
            return "connect timeout"
    for err in chain:
        if isinstance(err, NameResolutionError):
            return "DNS resolution failed"
        if isinstance(err, (ssl.SSLCertVerificationError, CertificateError)):
            return "TLS certificate verification failed"
    for err in chain:
        if isinstance(err, NewConnectionError):
            refused = any(isinstance(e, ConnectionRefusedError) for e in chain)
            return "connection refused" if refused else "connection failed"
    if not _raised_while_connecting(chain):
        return None
    # urllib3 opens the connection (TCP, proxy tunnel, TLS handshake) before
    # writing the request on it: an error raised inside connect() left nothing.
    if any(isinstance(err, (ssl.SSLError, SSLError)) for err in chain):
        return "TLS handshake failed"
    if any(isinstance(err, (TimeoutError, ReadTimeoutError)) for err in chain):
        return "TLS handshake timeout"
    return "connection failed"


def _raised_while_connecting(chain: list[BaseException]) -> bool:
    """Tell whether some error in the chain was raised inside urllib3's connect()."""
    for err in chain:
        tb = err.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_name == "connect" and code.co_filename.endswith(_URLLIB3_CONNECTION):
                return True
            tb = tb.tb_next
    return False


def _chain(exc: BaseException) -> list[BaseException]:
    """List exc and every exception it wraps (args, MaxRetryError.reason, cause, context)."""
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo and len(seen) < MAX_CHAIN:
        err = todo.pop()
        if any(err is known for known in seen):
            continue
        seen.append(err)
        linked = [*err.args, getattr(err, "reason", None), err.__cause__, err.__context__]
        todo.extend(item for item in linked if isinstance(item, BaseException))
    return seen
