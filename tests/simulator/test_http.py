"""HTTP-level behaviour: keep-alive framing, HTTP/1.0, chunked bodies, 100-continue."""

from __future__ import annotations

import json
import socket

import pytest


def _exchange(sim, raw: bytes) -> bytes:
    """Send raw bytes on a fresh connection; return everything until the server closes."""
    with socket.create_connection(("127.0.0.1", sim.port), timeout=5) as conn:
        conn.sendall(raw)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _request(path: str, body: bytes, extra: str = "", version: str = "HTTP/1.1") -> bytes:
    head = (f"POST {path} {version}\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{extra}\r\n")
    return head.encode() + body


def test_two_requests_on_one_connection_then_close(sim):
    body = json.dumps({"chat_id": 1, "text": "سلام"}).encode()
    path = f"/bot{sim.token}/sendMessage"
    raw = _request(path, body) + _request(f"/bot{sim.token}/getMe", b"", "Connection: close\r\n")
    answer = _exchange(sim, raw)
    assert answer.count(b"HTTP/1.1 200 OK") == 2 and b"Connection: close" in answer
    first = answer.split(b"\r\n\r\n", 1)[1]
    length = int(answer.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    assert json.loads(first[:length])["result"]["text"] == "سلام"


def test_http_10_closes_after_answer(sim):
    answer = _exchange(sim, _request(f"/bot{sim.token}/getMe", b"", version="HTTP/1.0"))
    assert answer.startswith(b"HTTP/1.1 200 OK") and b'"ok":true' in answer


def test_chunked_request_body(sim):
    body = json.dumps({"chat_id": 2, "text": "chunked"}).encode()
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    head = (f"POST /bot{sim.token}/sendMessage HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    answer = _exchange(sim, head + chunked)
    assert b'"text":"chunked"' in answer


def test_expect_100_continue(sim):
    body = json.dumps({"chat_id": 3, "text": "x"}).encode()
    answer = _exchange(sim, _request(f"/bot{sim.token}/sendMessage", body,
                                     "Expect: 100-continue\r\nConnection: close\r\n"))
    assert answer.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK")


@pytest.mark.parametrize("raw", [b"garbage\r\n\r\n", b"GET / HTTP/1.1\r\nno-colon\r\n\r\n"])
def test_malformed_requests_get_400(sim, raw):
    assert _exchange(sim, raw).startswith(b"HTTP/1.1 400")
