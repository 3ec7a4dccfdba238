"""A tiny stand-in for /internal/pump: checks the Bearer token, records calls, can be slow or fail."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakePumpEndpoint:
    """Serve POST/GET on loopback; answer 200 JSON for the right token, 401 otherwise."""

    def __init__(self, token: str):
        self.token = token
        self.calls: list[dict] = []
        self.delay = 0.0
        self.status = 200
        self.received = threading.Event()
        # Set to an Event, a request is held until the test sets it (instead of `delay`, which a loaded
        # machine may outlast before the test's next step runs).
        self.release: threading.Event | None = None
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/internal/pump"

    def start(self) -> FakePumpEndpoint:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                self._answer()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                self._answer()

            def _answer(self):
                endpoint.calls.append({"method": self.command, "path": self.path,
                                       "authorization": self.headers.get("Authorization")})
                endpoint.received.set()
                time.sleep(endpoint.delay)
                if endpoint.release is not None:
                    endpoint.release.wait(60)
                ok = self.headers.get("Authorization") == f"Bearer {endpoint.token}"
                status = endpoint.status if ok else 401
                body = {"ok": True, "jobs": [], "seconds": 0.0} if status == 200 else {"ok": False, "error": "nope"}
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
