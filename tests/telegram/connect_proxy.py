"""A loopback HTTP proxy that only tunnels (CONNECT), recording each tunnel's target and auth header."""

from __future__ import annotations

import socket
import threading


class ConnectProxy:
    """Accept CONNECT host:port, answer 200 and relay bytes both ways until either side closes."""

    def __init__(self) -> None:
        self.tunnels: list[tuple[str, str | None]] = []  # (target, Proxy-Authorization)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def start(self) -> ConnectProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._listener.close()

    def _accept_loop(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    return
                head += chunk
            lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
            verb, target, _ = lines[0].split(" ", 2)
            auth = next((line.split(":", 1)[1].strip() for line in lines[1:]
                         if line.lower().startswith("proxy-authorization:")), None)
            self.tunnels.append((target, auth))
            if verb != "CONNECT":
                client.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            host, port = target.rsplit(":", 1)
            with socket.create_connection((host, int(port))) as upstream:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                relay = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
                relay.start()
                _pipe(client, upstream)
                relay.join(5)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy bytes from source to sink until source closes; then close sink's write side."""
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass
