"""The callback-data parser is pure and refuses anything it did not build."""
import pytest

from app.bot.callback_data import MAX_BYTES, MAX_ID, Callback, build, new_token, parse

TOKEN = "Ab3_x9-Q"


@pytest.mark.parametrize("data, expected", [
    ("w.continue:12", ("continue", 12, None)),
    ("w.cancel_job:7", ("cancel_job", 7, None)),
    ("w.pause:1", ("pause", 1, None)),
    ("w.resume:99", ("resume", 99, None)),
    (f"w.aud:all:{TOKEN}", ("aud", "all", TOKEN)),
    (f"w.aud:non_members:{TOKEN}", ("aud", "non_members", TOKEN)),
    (f"w.aud:members:{TOKEN}", ("aud", "members", TOKEN)),
    (f"w.no_button:{TOKEN}", ("no_button", None, TOKEN)),
    (f"w.confirm:{TOKEN}", ("confirm", None, TOKEN)),
    (f"w.abort:{TOKEN}", ("abort", None, TOKEN)),
    ("s.edit:broadcast_batch_size", ("edit_setting", "broadcast_batch_size", None)),
    (f"w.continue:{MAX_ID}", ("continue", MAX_ID, None)),
    ("j.view:42", ("job_view", 42, None)),
    ("j.list", ("job_list", None, None)),
])
def test_parses_every_known_action(data, expected):
    assert parse(data) == expected
    assert build(*parse(data)) == data


@pytest.mark.parametrize("data", [
    None, 12, b"w.confirm", "", ":", "w.", "w", "w.continue", "w.continue:", "w.continue:-1", "w.continue:0",
    "w.continue:012", "w.continue:+5", "w.continue: 5", "w.continue:5 ", "w.continue:1.5", "w.continue:1e3",
    "w.continue:abc", "w.continue:١٢", "w.continue:１２", f"w.continue:{MAX_ID + 1}", "w.continue:" + "9" * 40,
    "w.continue:1:2", "w.aud:everyone", "w.aud:", "w.aud:ALL", "w.confirm:1", "w.no_button:x", "w.abort:",
    "w.delete:1", "x.continue:1", "W.CONFIRM", "s.edit:", "s.edit:nope", "s.edit:broadcast_batch_size:1",
    "w.confirm\n", "w.continue:" + "1" * 60, "w.aud:all" + "\x00",
    # Wizard buttons need exactly one 8-character URL-safe token, in its place.
    "w.aud:all", "w.no_button", "w.confirm", "w.abort", f"w.confirm:{TOKEN}:1", f"w.confirm:{TOKEN[:7]}",
    f"w.confirm:{TOKEN}x", "w.confirm:Ab3_x9-!", "w.confirm:Ab3 x9-Q", f"w.aud:{TOKEN}", f"w.aud:{TOKEN}:all",
    f"w.aud:everyone:{TOKEN}", f"w.no_button::{TOKEN}", f"w.continue:1:{TOKEN}", f"s.edit:broadcast_batch_size:{TOKEN}",
    "w.confirm:ابجدهوزح", f"w.confirm:{TOKEN}\n",
    "j.view", "j.view:", "j.view:0", "j.view:x", "j.list:1", f"j.list:{TOKEN}", f"j.view:1:{TOKEN}",
])
def test_refuses_malformed(data):
    assert parse(data) is None


def test_refuses_more_than_64_bytes():
    assert parse("s.edit:" + "a" * 60) is None
    assert len("w.continue:" + str(MAX_ID)) <= 64
    assert parse("w.aud:" + "ا" * 40) is None  # 80+ bytes in UTF-8


def test_build_refuses_what_parse_would_refuse():
    with pytest.raises(ValueError):
        build("continue", -1)
    with pytest.raises(ValueError):
        build("aud", "everyone")
    with pytest.raises(KeyError):
        build("explode")
    with pytest.raises(ValueError):
        build("confirm", token="short")
    assert isinstance(parse(f"w.confirm:{TOKEN}"), Callback)


def test_fresh_tokens_round_trip_within_64_bytes():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        for name in ("all", "non_members", "members"):
            data = build("aud", name, token)
            assert parse(data) == ("aud", name, token) and len(data.encode()) <= MAX_BYTES
        assert parse(build("confirm", token=token)) == ("confirm", None, token)
