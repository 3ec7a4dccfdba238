"""Bad input at /internal/pump and on the command line.

/internal/pump: random budgets and every way of presenting (or faking) the
token: the token is checked first, a bad budget is a 400, never a 500, never
a secret in the answer. CLI: `broadcast status|cancel|pause|resume` with
random ids and `settings set|get` with random keys and values exit 0, 1 or 2
with a message, never a traceback or a secret.
"""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.conftest import PUMP_TOKEN, TOKEN, WEBHOOK_SECRET
from tests.reliability.fuzzing import check_http, fuzz, tally
from tests.reliability.helpers import assert_no_secret
from tests.reliability.strategies import CHARS

NUMBERS = st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=True, allow_infinity=True))
SECONDS = st.one_of(st.none(), NUMBERS.map(str), st.text(CHARS, max_size=12),
                    st.sampled_from(["1", "3", "50", "51", "0", "-1", "1.5", " 2", "2 ", "٣", "²", "0x10", "1e1"]))
TOKENS = st.sampled_from([PUMP_TOKEN, PUMP_TOKEN + "x", PUMP_TOKEN[:-1], PUMP_TOKEN.upper(), WEBHOOK_SECRET, TOKEN,
                          "", " ", f" {PUMP_TOKEN} ", "Bearer"]) | st.text(st.characters(min_codepoint=33,
                                                                                              max_codepoint=126))
WAYS = st.sampled_from(["bearer", "basic", "query", "form", "none", "bearer_lower", "two_headers"])


@pytest.fixture
def no_jobs(app, fast_bot):
    """An empty engine: a correct call returns at once instead of pumping for its whole budget."""
    return None



def pump_request(client, method: str, way: str, token: str, seconds: str | None):
    """Call /internal/pump presenting token one way."""
    query, form, headers = {}, {}, {}
    if seconds is not None:
        (form if method == "POST" and way == "form" else query)["seconds"] = seconds
    if way in ("bearer", "two_headers"):
        headers["Authorization"] = f"Bearer {token}"
    elif way == "bearer_lower":
        headers["Authorization"] = f"bearer {token}"
    elif way == "basic":
        headers["Authorization"] = f"Basic {token}"
    elif way == "query":
        query["token"] = token
    elif way == "form" and method == "POST":
        form["token"] = token
    if way == "two_headers":
        query["token"] = "wrong"
    call = client.post if method == "POST" else client.get
    return call("/internal/pump", query_string=query, data=form or None, headers=headers)


@fuzz(150)
@given(method=st.sampled_from(["GET", "POST"]), way=WAYS, token=st.just(PUMP_TOKEN) | TOKENS, seconds=SECONDS)
@example(method="GET", way="bearer", token=PUMP_TOKEN, seconds="99999999999999999999999")
def test_pump_endpoint_parameters(client, no_jobs, figures, method, way, token, seconds):
    response = pump_request(client, method, way, token, seconds)
    tally(figures, "pump_endpoint", response)
    check_http(response, "a /internal/pump answer")
    presented = way != "none" and way != "basic" and not (way == "form" and method == "GET")
    if response.status_code != 401:
        assert presented and token.strip() == PUMP_TOKEN, (way, token, response.status_code)
    if response.status_code == 200:
        assert response.get_json()["jobs"] == []


IDS = st.one_of(st.integers(-2**70, 2**70).map(str), st.text(CHARS, max_size=15),
                st.sampled_from(["1", "2", "3", "4", "0", "-1", "+1", "01", "1.0", "١", "9223372036854775807"]))


def check_cli(result, where: str) -> None:
    """Exit 0, 1 or 2 with a message, never a traceback or a secret."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (where, repr(result.exception))
    assert result.exit_code in (0, 1, 2), (where, result.exit_code)
    assert "Traceback" not in result.output
    assert_no_secret(result.output, where)


@fuzz(150)
@given(verb=st.sampled_from(["status", "cancel", "pause", "resume"]), job_id=IDS,
       reason=st.one_of(st.none(), st.text(CHARS, max_size=300)))
@example(verb="status", job_id=str(2**63), reason=None)
@example(verb="cancel", job_id=str(2**64 + 1), reason=None)
def test_broadcast_cli_with_random_ids(runner, job_ids, figures, verb, job_id, reason):
    args = ["broadcast", verb, job_id] if reason is None or verb != "pause" else \
        ["broadcast", "pause", "--reason", reason, job_id]
    result = runner.invoke(args=args)
    counts = figures.setdefault("bad_input", {}).setdefault("cli_broadcast", {})
    counts[f"exit {result.exit_code}"] = counts.get(f"exit {result.exit_code}", 0) + 1
    check_cli(result, f"`flask {' '.join(args)[:80]}`")


@fuzz(150)
@given(key=st.one_of(st.sampled_from(["broadcast_rate_per_second", "cron_pump_seconds", "broadcast_paid_enabled",
                                      "telegram_read_timeout", "broadcast_concurrency"]), st.text(CHARS, max_size=40)),
       value=st.one_of(NUMBERS.map(str), st.text(CHARS, max_size=60), st.sampled_from(["on", "off", "1e999", "nan"])))
def test_settings_cli_with_random_keys_and_values(runner, no_jobs, figures, key, value):
    for args in (["settings", "set", key, value], ["settings", "get", key]):
        result = runner.invoke(args=args)
        counts = figures.setdefault("bad_input", {}).setdefault("cli_settings", {})
        counts[f"exit {result.exit_code}"] = counts.get(f"exit {result.exit_code}", 0) + 1
        check_cli(result, f"`flask {args[0]} {args[1]}`")
