"""A loopback Bot API whose answer to each send depends on the recipient (for exact breaker scenarios)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.telegram.stub_server import write_json

# Not about the recipient: counts toward the breaker.
SYSTEMIC = (400, "Bad Request: message to copy not found")
# About the recipient: skipped, and resets the streak.
BLOCKED = (403, "Forbidden: bot was blocked by the user")


class ScriptedApi:
    """Answer sendMessage per chat_id from `script` (default: delivered); record every call in order."""

    def __init__(self, script: dict[int, tuple[int, str]] | None = None) -> None:
        self.script = dict(script or {})
        self.calls: list[tuple[str, int | None]] = []
        # Connections accepted so far.
        self.connections = 0
        self._lock = threading.Lock()
        api = self

        class Server(ThreadingHTTPServer):
            def process_request(self, request, client_address) -> None:
                with api._lock:
                    api.connections += 1
                super().process_request(request, client_address)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as Telegram

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length") or 0)
                params = json.loads(self.rfile.read(length) or b"{}")
                status, body = api.answer(self.path.rsplit("/", 1)[-1], params)
                write_json(self, status, json.dumps(body).encode())

            def log_message(self, *args) -> None:
                pass

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def answer(self, method: str, params: dict) -> tuple[int, dict]:
        """Return (HTTP status, Bot API body) for one call."""
        chat_id = params.get("chat_id")
        with self._lock:
            self.calls.append((method, chat_id))
            message_id = len(self.calls)
        if method in ("sendMessage", "copyMessage") and chat_id in self.script:
            code, description = self.script[chat_id]
            return code, {"ok": False, "error_code": code, "description": description}
        result = {"message_id": message_id, "date": 0, "chat": {"id": chat_id or 0, "type": "private"}, "text": "ok"}
        return 200, {"ok": True, "result": True if method == "deleteMessage" else result}

    def sends_to(self, chat_ids) -> list[int]:
        """Return the recipients among chat_ids that were sent to, in call order."""
        wanted = set(chat_ids)
        with self._lock:
            return [c for m, c in self.calls if m in ("sendMessage", "copyMessage") and c in wanted]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> ScriptedApi:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
