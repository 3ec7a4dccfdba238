"""One HTTP attempt against the Bot API over urllib3 keep-alive connections, mapped to a result or our errors."""

from __future__ import annotations

import http.client
import json
import logging
import os
import ssl
import time
import urllib.request
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any
from urllib.parse import unquote, urlsplit

import certifi
import urllib3
from urllib3.exceptions import HTTPError
from urllib3.util import Retry, Timeout, make_headers, parse_url
from urllib3.util.wait import wait_for_read

from app.telegram import multipart
from app.telegram.errors import NetworkError, TelegramError, UnknownOutcome, error_from_payload
from app.telegram.failures import translate

log = logging.getLogger(__name__)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
# What an attempt may raise out of urllib3 (retries are off, so nothing is wrapped in MaxRetryError).
_FAILURES = (HTTPError, OSError, http.client.HTTPException)
# Per-host pools the manager keeps: the client talks to one host (the Bot API).
HOST_POOLS = 4
# What retries=False, redirect=False becomes inside urllib3, made once: it builds one per request otherwise.
NO_RETRIES = Retry(total=False, redirect=False)


class _Closable:
    """close() for the client: drop every pooled connection."""

    def close(self) -> None:
        # clear() only forgets the pools (urllib3 2 closes none of them): each is
        # closed too, so its kept-alive connections go now and a Transport that
        # holds it (_host_pool) takes a fresh one from the manager.
        pools = [self.pools[key] for key in list(self.pools.keys())]  # type: ignore[attr-defined]
        self.clear()  # type: ignore[attr-defined]
        for pool in pools:
            pool.close()


class Pool(_Closable, urllib3.PoolManager):
    """Direct keep-alive connections."""


class ProxyPool(_Closable, urllib3.ProxyManager):
    """Keep-alive connections through the environment's proxy (CONNECT tunnel for https)."""


def make_session(pool_size: int, base_url: str | None = None) -> Pool | ProxyPool:
    """Build the keep-alive pool ``pool_size`` threads share; proxy and CA settings are read once, here."""
    # retries=False: retries are decided once, in the client, never by urllib3,
    # which cannot tell a harmless resend from a duplicate message.
    options: dict[str, Any] = {"num_pools": HOST_POOLS, "maxsize": pool_size, "block": False, "retries": False,
                               "cert_reqs": "CERT_REQUIRED", **_ca_options()}
    proxy = _proxy_for(base_url) if base_url else None
    if proxy is None:
        return Pool(**options)
    return ProxyPool(proxy, proxy_headers=_proxy_auth(proxy), **options)


def _ca_options() -> dict[str, str]:
    """Return the CA bundle (file or directory) as requests and curl read it, else certifi's."""
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if bundle and os.path.isdir(bundle):
        return {"ca_cert_dir": bundle}
    return {"ca_certs": bundle or certifi.where()}


def _proxy_for(base_url: str) -> str | None:
    """Return the proxy URL the environment sets for base_url (HTTPS_PROXY, ALL_PROXY, NO_PROXY), if any."""
    parts = urlsplit(base_url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass_environment(parts.hostname or "", proxies):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _proxy_auth(proxy: str) -> dict[str, str] | None:
    """Return Proxy-Authorization for credentials in the proxy URL (urllib3 does not read them)."""
    parts = urlsplit(proxy)
    if parts.username is None:
        return None
    credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    return make_headers(proxy_basic_auth=credentials)


class Transport:
    """POST one JSON (or multipart upload) request per call and map the answer to a result or error."""

    def __init__(self, session: urllib3.PoolManager, base_url: str, token: str,
                 timeout: tuple[float, float]):
        self._pool = session
        self._token = token
        self._prefix = f"{base_url.rstrip('/')}/bot{token}/"
        # urllib3 would guess http:// for a URL without a scheme; requests refused it, and so do we.
        self._bad_url = urlsplit(base_url).scheme not in ("http", "https")
        self._connect, self._read = timeout
        self._timeout = Timeout(connect=self._connect, read=self._read)
        # Direct connections go straight to the API host's pool (see _host_pool); a proxy's go through its manager.
        self._direct = isinstance(session, Pool) and not self._bad_url
        self._path = parse_url(self._prefix).request_uri if self._direct else ""
        self._host = None

    def post(self, method: str, payload: dict[str, Any], *,
             timeout_cap: float | None = None, read_timeout: float | None = None) -> Any:
        """Send one request; return ``result`` or raise a TelegramError subclass.

        ``timeout_cap``: seconds the whole attempt (connect, then waiting for
        the answer) may take at most, on top of the usual per-phase timeouts.
        ``read_timeout``: this request's wait for its answer, instead of the usual one.
        """
        if self._bad_url:
            raise NetworkError(method, "invalid base URL")
        body = _encode(payload)
        if body is None:
            # Nothing left; retrying cannot help.
            raise TelegramError(method, "parameters are not JSON-serialisable")
        return self._send(method, body, HEADERS, timeout_cap, read_timeout)

    def post_files(self, method: str, payload: dict[str, Any], files: dict[str, multipart.Upload], *,
                   timeout_cap: float | None = None) -> Any:
        """Send one multipart request that uploads files (sendDocument), streamed from the files."""
        if self._bad_url:
            raise NetworkError(method, "invalid base URL")
        try:
            content_type, length, body = multipart.encode(payload, files)
        except ValueError:
            raise TelegramError(method, "parameters are not JSON-serialisable") from None
        headers = {"Content-Type": content_type, "Content-Length": str(length), "Accept": "application/json"}
        return self._send(method, body, headers, timeout_cap)

    def _send(self, method: str, body: Any, headers: dict[str, str], timeout_cap: float | None,
              read_timeout: float | None = None) -> Any:
        """POST one body and map the answer; failures never carry the URL (it holds the token)."""
        error: TelegramError | None = None
        timeout = self._timeout_for(timeout_cap, read_timeout)
        try:
            if self._direct:
                # What PoolManager.urlopen does for this one host, without parsing
                # the URL and looking its pool up again on every request.
                response = self._host_pool().urlopen("POST", self._path + method, body=body, headers=headers,
                                                     timeout=timeout, retries=NO_RETRIES,
                                                     redirect=False, assert_same_host=False, preload_content=True)
            else:
                response = self._pool.urlopen("POST", self._prefix + method, body=body, headers=headers,
                                              timeout=timeout, retries=NO_RETRIES,
                                              redirect=False, preload_content=True)
        except _FAILURES as exc:
            # urllib3's exceptions may quote the URL, token included: build our
            # own error from the exception's type only and raise it outside this
            # block so neither __cause__ nor __context__ refers to it.
            error = translate(method, exc)
        if error is not None:
            raise error
        return self._parse(method, response.status, response.data)

    def _host_pool(self) -> urllib3.HTTPConnectionPool:
        """Return the API host's connection pool, asking the manager again once it closed it (client.close())."""
        pool = self._host
        if pool is None or pool.pool is None:
            pool = self._host = self._pool.connection_from_url(self._prefix)
        return pool

    def warm(self, n: int, threads: Executor | None = None) -> int:
        """Open up to ``n`` keep-alive connections to the API now, side by side; return how many are open.

        A send whose connection is opened after its rate slot leaves late by a
        connect (to Telegram, a TCP and a TLS handshake: two or three round
        trips) and lands beside the next slot: a pump warms its connections
        before it books its first slot. Failures are left to the sends (which
        classify them); nothing is sent here. threads: the caller's own pool
        to open them on (a pump's send threads), so no second pool's threads
        come and go beside it (a host's NPROC limit counts threads).
        """
        if self._bad_url or n <= 0:
            return 0
        pool = self._pool.connection_from_url(self._prefix)
        # urllib3 has no public "pre-connect": take n distinct connections out
        # of the pool, open those that are not open, and put every one back.
        taken = [pool._get_conn() for _ in range(n)]
        try:
            if threads is not None:
                return sum(threads.map(self._open, taken))
            with ThreadPoolExecutor(max_workers=n, thread_name_prefix="warm") as own:
                return sum(own.map(self._open, taken))
        finally:
            for conn in taken:
                pool._put_conn(conn)

    def _open(self, conn: Any) -> bool:
        """Connect one pooled connection unless it is open; True when it is ready for a request."""
        if conn.is_connected:
            return True
        started = time.monotonic()
        try:
            conn.timeout = self._connect
            conn.connect()
            _settle(conn.sock, min(time.monotonic() - started, 1.0))
        except _FAILURES as exc:
            log.info("could not open a connection ahead of sending (%s)", type(exc).__name__)
            conn.close()
            return False
        if not conn.is_connected:
            conn.close()
            return False
        return True

    def _timeout_for(self, cap: float | None, read: float | None = None) -> Timeout:
        """Return the attempt's timeouts; with a cap, urllib3 counts connect and read together."""
        if cap is None and read is None:
            return self._timeout
        read = self._read if read is None else read
        if cap is None:
            return Timeout(connect=self._connect, read=read)
        return Timeout(connect=min(self._connect, cap), read=min(read, cap), total=cap)

    def _parse(self, method: str, status: int, body: bytes) -> Any:
        """Turn an HTTP response into ``result`` or the matching exception."""
        try:
            data = json.loads(body)
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


def _settle(sock: Any, wait: float) -> None:
    """Consume TLS 1.3 session tickets that arrive after the handshake.

    They make a fresh, unused socket readable, and urllib3 takes a readable
    idle connection for one the server dropped and opens a new one at the
    first request, which is exactly the late connect warming avoids. Waiting
    as long as the handshake took covers the round trip they need.
    """
    if not isinstance(sock, ssl.SSLSocket) or not wait_for_read(sock, timeout=wait):
        return
    timeout = sock.gettimeout()
    sock.setblocking(False)
    try:
        if sock.recv(1) == b"":
            raise ConnectionResetError("closed by the server right after the handshake")
        raise ConnectionError("unexpected data before any request")
    except ssl.SSLWantReadError:
        pass  # only tickets were there: consumed, nothing to read
    finally:
        sock.settimeout(timeout)


def _encode(payload: dict[str, Any]) -> bytes | None:
    """Return the payload as UTF-8 JSON, or None for values JSON cannot carry (NaN, lone surrogates).

    A TypeError (an object that is not JSON at all) is a programming error and propagates.
    """
    try:
        return json.dumps(payload, ensure_ascii=False, allow_nan=False).encode()
    except ValueError:
        return None
