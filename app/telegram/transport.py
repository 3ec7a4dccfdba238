"""One HTTP attempt against the Bot API, translated into a result or our errors."""

from __future__ import annotations

import os
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import (
    MaxRetryError,
    NameResolutionError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

from app.telegram.errors import (
    NetworkError,
    TelegramError,
    UnknownOutcome,
    error_from_payload,
)


def make_session(pool_size: int, base_url: str | None = None) -> requests.Session:
    """Build a keep-alive session whose pool serves ``pool_size`` threads at once."""
    session = requests.Session()
    if base_url is not None:
        # requests re-reads proxy and CA settings from os.environ on every call
        # (a sixth of a broadcast's CPU); read them once here instead, so hosts
        # that need HTTPS_PROXY or REQUESTS_CA_BUNDLE still work.
        session.proxies.update(requests.utils.get_environ_proxies(base_url))
        session.verify = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE") or True
        session.trust_env = False
    # max_retries=0: retries are decided once, in the client, never by urllib3,
    # which cannot tell a harmless resend from a duplicate message.
    adapter = HTTPAdapter(pool_connections=2, pool_maxsize=pool_size, max_retries=0)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


class Transport:
    """POST one JSON request per call and map the answer to a result or error."""

    def __init__(self, session: requests.Session, base_url: str, token: str,
                 timeout: tuple[float, float]):
        self._session = session
        self._token = token
        self._prefix = f"{base_url.rstrip('/')}/bot{token}/"
        self._timeout = timeout

    def post(self, method: str, payload: dict[str, Any]) -> Any:
        """Send one request; return ``result`` or raise a TelegramError subclass."""
        error: TelegramError | None = None
        try:
            response = self._session.post(self._prefix + method, json=payload,
                                          timeout=self._timeout)
        except requests.RequestException as exc:
            # requests' exceptions quote the URL, token included: build our own
            # error from the exception's type only and raise it outside this
            # block so neither __cause__ nor __context__ refers to it.
            error = _translate(method, exc)
        if error is not None:
            raise error
        return self._parse(method, response)

    def _parse(self, method: str, response: requests.Response) -> Any:
        """Turn an HTTP response into ``result`` or the matching exception."""
        status = response.status_code
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict) or "ok" not in data:
            # A proxy page or truncated body: Telegram may have acted on it.
            raise UnknownOutcome(method, f"malformed response (HTTP {status})",
                                 status if status >= 400 else None)
        if data["ok"] and status < 500:
            return data.get("result")
        if data.get("description"):
            data = {**data, "description": self._scrub(str(data["description"]))}
        error = error_from_payload(method, status, data)
        if status >= 500 and not isinstance(error, UnknownOutcome):
            error = UnknownOutcome(method, error.description, status)
        raise error

    def _scrub(self, text: str) -> str:
        """Hide the token should a server ever echo it back."""
        return text.replace(self._token, "<token>") if self._token else text


def _translate(method: str, exc: requests.RequestException) -> TelegramError:
    """Map a requests exception to NetworkError (not sent) or UnknownOutcome (maybe sent)."""
    if isinstance(exc, requests.exceptions.InvalidJSONError):
        # Raised while building the body: nothing left, and retrying cannot help.
        return TelegramError(method, "parameters are not JSON-serialisable")
    if isinstance(exc, requests.ConnectTimeout):
        return NetworkError(method, "connect timeout")
    if isinstance(exc, requests.ReadTimeout):
        return UnknownOutcome(method, "read timeout")
    if isinstance(exc, requests.exceptions.SSLError):
        return NetworkError(method, "TLS handshake failed")
    if isinstance(exc, requests.ConnectionError):
        return _connection_error(method, exc)
    if isinstance(exc, (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
                        requests.exceptions.InvalidSchema)):
        return NetworkError(method, "invalid base URL")
    return UnknownOutcome(method, f"request failed ({type(exc).__name__})")


def _connection_error(method: str, exc: requests.ConnectionError) -> TelegramError:
    """Tell a connection that never opened from one that broke after sending."""
    cause = exc.args[0] if exc.args else None
    if isinstance(cause, MaxRetryError):
        cause = cause.reason
    if isinstance(cause, NameResolutionError):
        return NetworkError(method, "DNS resolution failed")
    if isinstance(cause, NewConnectionError):
        origin = cause.__cause__ or cause.__context__
        refused = isinstance(origin, ConnectionRefusedError)
        return NetworkError(method, "connection refused" if refused else "connection failed")
    if isinstance(cause, ReadTimeoutError):
        return UnknownOutcome(method, "read timeout")
    if isinstance(cause, ProtocolError):
        return UnknownOutcome(method, "connection closed before the response")
    # Unknown shapes are treated as "maybe sent": a duplicate is worse than a miss.
    return UnknownOutcome(method, "connection error")
