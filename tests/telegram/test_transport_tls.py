"""TLS failures over real HTTPS on loopback: only a failure before the request was written is retried."""

import time

import pytest

from app.telegram.client import TelegramClient
from app.telegram.errors import NetworkError, UnknownOutcome
from tests.telegram import tls_server as tls
from tests.telegram.tls_server import TlsServer

TOKEN = "654321:TLS-token-zyxwvutsrqponm"


@pytest.fixture
def serve(certs, monkeypatch):
    """Start a TLS server in a mode; the client trusts only the 'trusted' certificate."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", certs["trusted"][0])
    servers = []

    def start(mode, cert="trusted"):
        server = TlsServer(*certs[cert], mode=mode).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def sleeps():
    return []


def make_client(server, sleeps, **kw):
    # The client builds its own session, which reads REQUESTS_CA_BUNDLE once.
    return TelegramClient(TOKEN, server.base_url, connect_timeout=1.0, read_timeout=2.0,
                          max_retries=2, sleep=sleeps.append, **kw)


def test_trusted_server_answers(serve, sleeps):
    server = serve(tls.OK)
    with make_client(server, sleeps) as client:
        assert client.send_message(1, "hi")["message_id"] == 1
    assert server.requests == ["sendMessage"]


@pytest.mark.parametrize("mode", [tls.GARBAGE, tls.RESET, tls.HALF_RESPONSE])
def test_send_broken_after_the_request_arrived_is_unknown_and_sent_once(serve, sleeps, mode):
    """The issue's reproduction: a TLS stream that breaks while reading the answer."""
    server = serve(mode)
    with make_client(server, sleeps) as client, pytest.raises(UnknownOutcome):
        client.send_message(1, "hi")
    assert server.requests == ["sendMessage"]
    assert sleeps == []


def test_send_never_retries_an_unknown_even_when_asked_not_to(serve, sleeps):
    server = serve(tls.GARBAGE)
    with make_client(server, sleeps) as client, pytest.raises(UnknownOutcome):
        client.call("sendMessage", {"chat_id": 1, "text": "hi"}, retry_unknown=False,
                    deadline=time.monotonic() + 30)
    assert server.requests == ["sendMessage"]


def test_idempotent_edit_broken_after_arrival_is_retried(serve, sleeps):
    server = serve(tls.GARBAGE)
    with make_client(server, sleeps) as client, pytest.raises(UnknownOutcome):
        client.edit_message_text(1, 1, "x")
    assert server.requests == ["editMessageText"] * 3


def test_reset_of_a_reused_keep_alive_connection_is_unknown(serve, sleeps):
    server = serve(tls.OK_THEN_RESET)
    with make_client(server, sleeps) as client:
        client.send_message(1, "first")
        with pytest.raises(UnknownOutcome):
            client.send_message(1, "second")
    assert server.requests == ["sendMessage", "sendMessage"]
    assert server.accepted == 1


def test_untrusted_certificate_never_sends_and_is_retried(serve, sleeps):
    server = serve(tls.OK, cert="untrusted")
    with make_client(server, sleeps) as client, pytest.raises(NetworkError) as caught:
        client.send_message(1, "hi")
    assert "certificate" in caught.value.description
    assert server.accepted == 3 and server.requests == []
    assert len(sleeps) == 2


def test_close_before_the_handshake_completes_is_retried(serve, sleeps):
    server = serve(tls.CLOSE_BEFORE_HANDSHAKE)
    with make_client(server, sleeps) as client, pytest.raises(NetworkError):
        client.send_message(1, "hi")
    assert server.accepted == 3 and server.requests == []


def test_handshake_that_never_answers_is_retried(serve, sleeps):
    server = serve(tls.HANG_HANDSHAKE)
    client = TelegramClient(TOKEN, server.base_url, connect_timeout=0.3, read_timeout=2.0,
                            max_retries=1, sleep=sleeps.append)
    with client, pytest.raises(NetworkError):
        client.send_message(1, "hi")
    assert server.accepted == 2 and server.requests == []
