"""The bot token never shows in errors, reprs, tracebacks or the client's logs."""

import logging
import traceback

import pytest

from app.telegram.client import TelegramClient
from app.telegram.errors import TelegramError
from app.telegram.outbox import Outbox
from app.telegram.pacing import RateLimiter
from tests.ports import free_port
from tests.telegram.stub_server import DROP, StubServer


@pytest.fixture
def stub():
    server = StubServer().start()
    yield server
    server.stop()


def no_sleep(_seconds):
    pass


def revoked(sim, stub):
    sim.revoke_token()
    return TelegramClient(sim.token, sim.base_url, sleep=no_sleep).get_me()


def refused(sim, stub):
    return TelegramClient(sim.token, f"http://127.0.0.1:{free_port()}",
                          sleep=no_sleep).send_message(1, "x")


def read_timeout(sim, stub):
    sim.configure(hang_after_delivery_ratio=1.0, hang_seconds=0.6)
    return TelegramClient(sim.token, sim.base_url, read_timeout=0.2,
                          sleep=no_sleep).send_message(1, "x")


def bad_gateway(sim, stub):
    sim.configure(fail_5xx_after_delivery_ratio=1.0)
    return TelegramClient(sim.token, sim.base_url, sleep=no_sleep).edit_message_text(1, 1, "x")


def flood(sim, stub):
    sim.configure(fail_429_ratio=1.0, retry_after_range=(1, 1))
    return TelegramClient(sim.token, sim.base_url, sleep=no_sleep).send_message(1, "x")


def blocked(sim, stub):
    sim.block(1)
    return TelegramClient(sim.token, sim.base_url, sleep=no_sleep).send_message(1, "x")


def bad_request(sim, stub):
    return TelegramClient(sim.token, sim.base_url, sleep=no_sleep).copy_message(1, -100, 99999)


def dropped(sim, stub):
    stub.answers = [DROP]
    return TelegramClient(sim.token, stub.base_url, sleep=no_sleep).send_message(1, "x")


def malformed(sim, stub):
    stub.answers = [(200, b"not json at all")]
    return TelegramClient(sim.token, stub.base_url, sleep=no_sleep).send_message(1, "x")


def echoed(sim, stub):
    # A misbehaving proxy that quotes the request path back in its error.
    stub.answers = [(400, b'{"ok":false,"error_code":400,"description":"bad /bot%s/x"}'
                     % sim.token.encode())]
    return TelegramClient(sim.token, stub.base_url, sleep=no_sleep).send_message(1, "x")


def refused_slot(sim, stub):
    client = TelegramClient(sim.token, sim.base_url, rate_limiter=RateLimiter(0.1))
    client.send_message(1, "x", broadcast=True)
    return client.send_message(2, "x", broadcast=True, deadline=client.clock())


@pytest.mark.parametrize("provoke", [revoked, refused, read_timeout, bad_gateway, flood, blocked,
                                     bad_request, dropped, malformed, echoed, refused_slot])
def test_token_never_leaks(simulator, stub, caplog, provoke):
    caplog.set_level(logging.DEBUG)
    with pytest.raises(TelegramError) as caught:
        provoke(simulator, stub)
    exc = caught.value
    token = simulator.token
    assert token not in str(exc)
    assert token not in repr(exc)
    assert token not in "".join(traceback.format_exception(exc))
    # Nothing of requests' (URL-quoting) exception is kept on ours.
    assert exc.__cause__ is None and exc.__context__ is None
    ours = [r for r in caplog.records if r.name.startswith("app.telegram")]
    assert all(token not in r.getMessage() for r in ours)


def test_outbox_logs_do_not_leak(simulator, caplog):
    caplog.set_level(logging.DEBUG)
    simulator.block(9)
    client = TelegramClient(simulator.token, simulator.base_url)
    outbox = Outbox(client)
    future = outbox.send(9, "x")
    outbox.flush()
    assert future.result(0) is None
    ours = [r for r in caplog.records if r.name.startswith("app.telegram")]
    assert ours and all(simulator.token not in r.getMessage() for r in ours)
