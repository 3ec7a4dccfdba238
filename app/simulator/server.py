"""HTTP plumbing: keep-alive handler and threaded server on loopback."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from app.simulator.api import JSON_TYPE, Response, encode

# route(verb, raw_path, headers, body) -> (status, content type, body)
Router = Callable[[str, str, Any, bytes], Response]


class _Headers(dict):
    """Request headers keyed in lower case, with a case-insensitive get()."""

    def get(self, key: str, default: Any = None) -> Any:
        return dict.get(self, key.lower(), default)


class _Handler(BaseHTTPRequestHandler):
    """One keep-alive connection; each request is routed to the simulator."""

    protocol_version = "HTTP/1.1"
    server_version = "TelegramBotApiSim/1.0"
    # Without this, keep-alive request/response pairs stall ~40 ms on delayed ACKs.
    disable_nagle_algorithm = True

    def setup(self) -> None:
        super().setup()
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def parse_request(self) -> bool:
        """Parse the request line and headers; a lean stand-in for the email-based parser.

        The stdlib parses headers with the email package, which costs more CPU than
        everything else a request does here; benchmarks push ~1000 requests/s.
        """
        self.command = None
        self.close_connection = True
        # send_error() writes no status line for the stdlib's default "HTTP/0.9".
        self.request_version = "HTTP/1.1"
        self.requestline = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        words = self.requestline.split()
        if len(words) != 3 or not words[2].startswith("HTTP/1."):
            self.send_error(400, "Bad request line")
            return False
        self.command, self.path, self.request_version = words
        headers = _Headers()
        for _ in range(101):
            line = self.rfile.readline(65537)
            if line in (b"\r\n", b"\n", b""):
                break
            name, colon, value = line.decode("iso-8859-1").partition(":")
            if not colon or len(line) > 65536:
                self.send_error(400, "Bad header line")
                return False
            headers[name.strip().lower()] = value.strip()
        else:
            self.send_error(431, "Too many headers")
            return False
        self.headers = headers
        connection = headers.get("connection", "").lower()
        self.close_connection = connection == "close" or (
            self.request_version == "HTTP/1.0" and connection != "keep-alive")
        if headers.get("expect", "").lower() == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        return True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Stay silent: a benchmark logs thousands of requests per second."""

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        try:
            body = self._read_body()
        except ValueError:
            self.close_connection = True
            self._reply((400, JSON_TYPE, encode({"ok": False, "error_code": 400,
                                                 "description": "Bad Request: bad body framing"})))
            return
        self._reply(self.server.router(self.command, self.path, self.headers, body))

    def _read_body(self) -> bytes:
        """Read the request body by Content-Length or chunked encoding."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _reply(self, response: Response) -> None:
        """Write status, headers and body in one send with an exact Content-Length."""
        status, content_type, data = response
        reason = self.responses.get(status, ("Unknown",))[0]
        head = (f"HTTP/1.1 {status} {reason}\r\nServer: {self.server_version}\r\n"
                f"Content-Type: {content_type}\r\nContent-Length: {len(data)}\r\n")
        if self.close_connection:
            head += "Connection: close\r\n"
        try:
            self.wfile.write(head.encode("latin-1") + b"\r\n" + data)
        except OSError:
            # The client gave up (e.g. read timeout during an injected hang).
            self.close_connection = True


class HttpServer(ThreadingHTTPServer):
    """Thread-per-connection server that hands every request to a router."""

    daemon_threads = True
    allow_reuse_address = True
    # Benchmarks open dozens of connections at once.
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], router: Router):
        self.router = router
        self._conns: set[socket.socket] = set()
        self._conns_lock = threading.Lock()
        super().__init__(address, _Handler)

    def track(self, conn: socket.socket, alive: bool) -> None:
        """Remember open connections so stop() can close idle keep-alive ones."""
        with self._conns_lock:
            (self._conns.add if alive else self._conns.discard)(conn)

    def close_connections(self) -> None:
        with self._conns_lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
