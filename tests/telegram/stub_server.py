"""A loopback HTTP server that answers with scripted raw responses (for malformed cases)."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A scripted answer: (status, body bytes), or DROP to close the socket unanswered.
DROP = "drop"


class StubServer:
    """Serve scripted answers on 127.0.0.1 and record the paths requested."""

    def __init__(self) -> None:
        self.answers: list = []
        self.requests: list[tuple[str, dict]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append((self.path.rsplit("/", 1)[-1], body))
                answer = stub.answers.pop(0) if stub.answers else (200, b'{"ok":true,"result":true}')
                if answer == DROP:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                write_json(self, *answer)

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def write_json(handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
    """Answer a test server's request with a JSON body of exactly this length."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)

