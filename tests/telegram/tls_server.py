"""A loopback HTTPS server with a self-signed certificate that breaks TLS on purpose."""

from __future__ import annotations

import json
import os
import socket
import ssl
import struct
import subprocess
import threading
from pathlib import Path

OK_BODY = json.dumps({"ok": True, "result": {"message_id": 1, "chat": {"id": 1}, "date": 0}}).encode()

# What the server does with a connection:
OK = "ok"                            # answer every request (keep-alive)
GARBAGE = "garbage"                  # read the request, then write a corrupt TLS record
RESET = "reset"                      # read the request, then reset the TCP connection
HALF_RESPONSE = "half_response"      # read the request, send half an answer, then reset
OK_THEN_RESET = "ok_then_reset"      # answer the first request, reset on the second
CLOSE_BEFORE_HANDSHAKE = "close_before_handshake"  # accept TCP, close at once
HANG_HANDSHAKE = "hang_handshake"    # accept TCP, never answer the ClientHello


def make_certificate(directory: Path, name: str) -> tuple[str, str]:
    """Create a self-signed certificate for 127.0.0.1 with the openssl CLI; return (cert, key)."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True)
    return str(cert), str(key)


class TlsServer:
    """Serve HTTPS on 127.0.0.1 in ``mode``; count TCP accepts, handshakes and requests."""

    def __init__(self, cert: str, key: str, mode: str = OK):
        self.mode = mode
        self.accepted = 0
        self.handshakes = 0
        self.requests: list[str] = []
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(cert, key)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self._listener.getsockname()[1]}"

    def start(self) -> TlsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._listener.close()
        with self._lock:
            for sock in self._open:
                _close_quietly(sock)

    def _accept_loop(self) -> None:
        while True:
            try:
                raw, _ = self._listener.accept()
            except OSError:
                return
            with self._lock:
                self.accepted += 1
                self._open.append(raw)
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        try:
            self._serve_connection(raw)
        except (OSError, ValueError):
            pass
        finally:
            _close_quietly(raw)

    def _serve_connection(self, raw: socket.socket) -> None:
        if self.mode == CLOSE_BEFORE_HANDSHAKE:
            return
        if self.mode == HANG_HANDSHAKE:
            raw.settimeout(10)
            while raw.recv(4096):
                pass
            return
        try:
            tls = self._context.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            return
        with self._lock:
            self.handshakes += 1
        served = 0
        while True:
            path = _read_request(tls)
            if path is None:
                return
            with self._lock:
                self.requests.append(path.rsplit("/", 1)[-1])
            served += 1
            if self.mode == OK or (self.mode == OK_THEN_RESET and served == 1):
                tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            b"Content-Length: " + str(len(OK_BODY)).encode() + b"\r\n\r\n" + OK_BODY)
                continue
            if self.mode == GARBAGE:
                plain = socket.socket(fileno=tls.detach())
                # An application-data record whose MAC can never verify.
                plain.sendall(b"\x17\x03\x03\x00\x20" + os.urandom(32))
                _close_quietly(plain)
                return
            if self.mode == HALF_RESPONSE:
                tls.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"ok\": tr")
            _reset(socket.socket(fileno=tls.detach()))
            return


def _read_request(tls: ssl.SSLSocket) -> str | None:
    """Read one whole HTTP request (head and Content-Length body); return its path."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = tls.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = tls.recv(65536)
        if not chunk:
            return None
        body += chunk
    return lines[0].split(" ")[1]


def _reset(sock: socket.socket) -> None:
    """Close with SO_LINGER 0, so the peer gets a TCP reset instead of a clean close."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    _close_quietly(sock)


def _close_quietly(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass
