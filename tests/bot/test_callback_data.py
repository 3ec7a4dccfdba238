"""The callback-data parser is pure and refuses anything it did not build."""
import pytest

from app.bot.callback_data import MAX_ID, Callback, build, parse


@pytest.mark.parametrize("data, expected", [
    ("w.continue:12", ("continue", 12)),
    ("w.cancel_job:7", ("cancel_job", 7)),
    ("w.pause:1", ("pause", 1)),
    ("w.resume:99", ("resume", 99)),
    ("w.aud:all", ("aud", "all")),
    ("w.aud:non_members", ("aud", "non_members")),
    ("w.aud:members", ("aud", "members")),
    ("w.no_button", ("no_button", None)),
    ("w.confirm", ("confirm", None)),
    ("w.abort", ("abort", None)),
    ("s.edit:broadcast_batch_size", ("edit_setting", "broadcast_batch_size")),
    (f"w.continue:{MAX_ID}", ("continue", MAX_ID)),
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
    assert isinstance(parse("w.confirm"), Callback)
