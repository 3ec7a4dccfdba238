"""The urllib3 transport over real HTTP(S) on loopback: cheap per call, UTF-8 JSON, proxies and CAs read once."""

import base64
import json
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from app.telegram.client import TelegramClient
from app.telegram.errors import NetworkError
from tests.ports import free_port
from tests.telegram import tls_server as tls
from tests.telegram.connect_proxy import ConnectProxy
from tests.telegram.stub_server import write_json
from tests.telegram.tls_server import TlsServer

TOKEN = "654321:U3-token-zyxwvutsrqponm"
PERSIAN = "سلام، به‌روزرسانی آماده است"


@pytest.fixture
def clean_env(monkeypatch):
    """No proxy or CA settings from the machine running the tests."""
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
                 "NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def https_server(certs):
    server = TlsServer(*certs["trusted"], mode=tls.OK).start()
    yield server
    server.stop()


@pytest.fixture
def proxy():
    server = ConnectProxy().start()
    yield server
    server.stop()


class Recorder:
    """Record each request's raw headers and body; answer ok."""

    def __init__(self) -> None:
        self.seen: list[tuple[dict, bytes]] = []
        self.paths: list[str] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.seen.append((dict(self.headers), body))
                recorder.paths.append(self.path)
                write_json(self, 200, b'{"ok":true,"result":{"message_id":1,"chat":{"id":1},"date":0}}')

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"


def test_body_is_utf8_json_with_its_content_type(clean_env):
    recorder = Recorder()
    try:
        with TelegramClient(TOKEN, recorder.base_url) as client:
            client.send_message(5, PERSIAN)
    finally:
        recorder.server.shutdown()
        recorder.server.server_close()
    headers, body = recorder.seen[0]
    assert headers["Content-Type"] == "application/json"
    # UTF-8, not \\u escapes: Persian text costs half the bytes on the wire.
    assert PERSIAN.encode() in body
    assert json.loads(body)["text"] == PERSIAN


def _cpu_per_call(send, calls: int) -> float:
    """Return this thread's CPU seconds per call (the simulator's threads are not counted)."""
    started = time.thread_time()
    for i in range(calls):
        send(i)
    return (time.thread_time() - started) / calls


def test_a_closed_client_sends_again_at_its_base_urls_own_path(clean_env):
    """Requests go straight to the host's pool: one the client closed is opened again, the base URL's path kept."""
    recorder = Recorder()
    try:
        client = TelegramClient(TOKEN, recorder.base_url + "/api/")
        client.send_message(5, "one")
        client.close()
        client.send_message(5, "two")
        client.close()
    finally:
        recorder.server.shutdown()
        recorder.server.server_close()
    assert [json.loads(body)["text"] for _, body in recorder.seen] == ["one", "two"]
    assert recorder.paths == [f"/api/bot{TOKEN}/sendMessage"] * 2


def test_a_call_costs_well_under_a_bare_requests_post(simulator, clean_env):
    """Paid broadcasts are bound by the client's CPU under the GIL: the whole client
    (pacing, retries, error mapping) must cost clearly less than requests alone."""
    simulator.configure(global_rate=0, paid_rate=0, per_chat_limits=False)
    payload = {"chat_id": 1, "text": PERSIAN, "parse_mode": "HTML"}
    session = requests.Session()
    session.trust_env = False  # requests at its cheapest: no per-call environment lookups
    url = f"{simulator.base_url}/bot{simulator.token}/sendMessage"
    with TelegramClient(simulator.token, simulator.base_url, pool_size=2) as client:
        def ours(i):
            client.call("sendMessage", {**payload, "chat_id": 10_000 + i}, retry_unknown=False)

        def theirs(i):
            session.post(url, json={**payload, "chat_id": 20_000 + i}, timeout=(3, 5)).json()

        ratios = []
        for _ in range(5):  # interleaved rounds, so a busy machine slows both alike
            ours(0), theirs(0)
            ratios.append(_cpu_per_call(ours, 100) / _cpu_per_call(theirs, 100))
    session.close()
    print("CPU per call, ours / requests':", [round(r, 2) for r in ratios])
    assert statistics.median(ratios) < 0.75, ratios


def test_https_proxy_is_read_once_and_tunnels_with_its_credentials(clean_env, certs, https_server, proxy):
    clean_env.setenv("REQUESTS_CA_BUNDLE", certs["trusted"][0])
    clean_env.setenv("HTTPS_PROXY", proxy.url.replace("http://", "http://bot:p%40ss@"))
    with TelegramClient(TOKEN, https_server.base_url) as client:
        # Read when the client was built, not on every call.
        clean_env.delenv("HTTPS_PROXY")
        client.send_message(1, "one")
        client.send_message(1, "two")
    port = https_server.base_url.rsplit(":", 1)[1]
    expected_auth = "Basic " + base64.b64encode(b"bot:p@ss").decode()
    assert proxy.tunnels == [(f"127.0.0.1:{port}", expected_auth)]  # one kept-alive tunnel
    assert https_server.requests == ["sendMessage", "sendMessage"]


def test_no_proxy_bypasses_the_proxy(clean_env, certs, https_server, proxy):
    clean_env.setenv("REQUESTS_CA_BUNDLE", certs["trusted"][0])
    clean_env.setenv("HTTPS_PROXY", proxy.url)
    clean_env.setenv("NO_PROXY", "127.0.0.1")
    with TelegramClient(TOKEN, https_server.base_url) as client:
        client.send_message(1, "direct")
    assert proxy.tunnels == []
    assert https_server.requests == ["sendMessage"]


def test_unreachable_proxy_is_never_sent_and_keeps_the_token_out(clean_env, certs, https_server):
    clean_env.setenv("REQUESTS_CA_BUNDLE", certs["trusted"][0])
    clean_env.setenv("HTTPS_PROXY", f"http://127.0.0.1:{free_port()}")
    sleeps = []
    with TelegramClient(TOKEN, https_server.base_url, max_retries=1, sleep=sleeps.append) as client, \
            pytest.raises(NetworkError) as caught:
        client.send_message(1, "x")
    assert https_server.requests == [] and len(sleeps) == 1
    assert TOKEN not in str(caught.value) and caught.value.__context__ is None


@pytest.mark.parametrize("base_url", ["127.0.0.1:9", "ftp://127.0.0.1", "http://", "not a url"])
def test_a_bad_base_url_is_refused_without_the_token(clean_env, base_url):
    with TelegramClient(TOKEN, base_url, max_retries=0) as client, pytest.raises(NetworkError) as caught:
        client.get_me()
    assert caught.value.description == "invalid base URL"
    assert TOKEN not in str(caught.value) and caught.value.__context__ is None


def test_curl_ca_bundle_is_honoured_too(clean_env, certs, https_server):
    clean_env.setenv("CURL_CA_BUNDLE", certs["trusted"][0])
    with TelegramClient(TOKEN, https_server.base_url) as client:
        assert client.send_message(1, "hi")["message_id"] == 1


def test_without_a_bundle_the_system_cas_reject_a_self_signed_server(clean_env, https_server):
    with TelegramClient(TOKEN, https_server.base_url, max_retries=0) as client, \
            pytest.raises(NetworkError) as caught:
        client.send_message(1, "hi")
    assert "certificate" in caught.value.description
    assert https_server.requests == []


def test_threads_share_kept_alive_connections(clean_env, certs, https_server):
    clean_env.setenv("REQUESTS_CA_BUNDLE", certs["trusted"][0])
    with TelegramClient(TOKEN, https_server.base_url, pool_size=8) as client, \
            ThreadPoolExecutor(8) as pool:
        for _ in range(3):
            list(pool.map(lambda i: client.send_message(i, "x"), range(8)))
    assert len(https_server.requests) == 24
    # At most one TLS handshake per pooled connection, however many rounds.
    assert https_server.accepted <= 8


def test_warm_opens_connections_that_the_next_calls_reuse(clean_env, certs, https_server):
    clean_env.setenv("REQUESTS_CA_BUNDLE", certs["trusted"][0])
    with TelegramClient(TOKEN, https_server.base_url, pool_size=8) as client, ThreadPoolExecutor(4) as pool:
        assert client.warm(4) == 4
        assert (https_server.accepted, len(https_server.requests)) == (4, 0), "warming sends nothing"
        assert client.warm(4) == 4 and https_server.accepted == 4, "open connections are kept, not reopened"
        barrier = threading.Barrier(4)
        list(pool.map(lambda i: (barrier.wait(5), client.send_message(i, "x")), range(4)))
    assert (https_server.accepted, len(https_server.requests)) == (4, 4)


def test_warm_against_an_unreachable_api_opens_nothing_and_raises_nothing(clean_env):
    with TelegramClient(TOKEN, f"http://127.0.0.1:{free_port()}", connect_timeout=0.5) as client:
        assert client.warm(3) == 0
