"""Pure checks of the admin's broadcast message and link button."""
import pytest
from telegram import Message

from app.bot.drafts import DraftError, copy_draft, parse_url_button, utf16_len
from app.services.broadcast.content.button_url import url_problem
from app.simulator.updates import message_update


def message(**kwargs) -> Message:
    """Build a PTB Message from the simulator's update builder."""
    return Message.de_json(message_update(1001, **kwargs)["message"], None)


def error_of(fn, *args) -> DraftError:
    with pytest.raises(DraftError) as info:
        fn(*args)
    return info.value


def test_text_and_media_become_a_copy_reference():
    msg = message(text="سلام 👋", message_id=55)
    assert copy_draft(msg) == {"type": "copy", "from_chat_id": 1001, "message_id": 55}
    photo = message(photo=True, caption="عکس", message_id=56)
    assert copy_draft(photo)["message_id"] == 56
    assert copy_draft(message(photo=True))["type"] == "copy"


def test_limits_count_utf16_like_telegram():
    assert utf16_len("😀") == 2
    assert copy_draft(message(text="a" * 4096))
    err = error_of(copy_draft, message(text="a" * 4097))
    assert (err.key, err.values) == ("wiz_text_too_long", {"length": 4097})
    assert error_of(copy_draft, message(text="😀" * 2049)).key == "wiz_text_too_long"
    assert copy_draft(message(photo=True, caption="c" * 1024))
    err = error_of(copy_draft, message(photo=True, caption="c" * 1025))
    assert (err.key, err.values) == ("wiz_caption_too_long", {"length": 1025})


def test_empty_and_unsupported_messages_are_refused():
    assert error_of(copy_draft, message(text="  \n ")).key == "wiz_empty"
    raw = message_update(1001)["message"]
    raw["location"] = {"latitude": 35.7, "longitude": 51.4}
    assert error_of(copy_draft, Message.de_json(raw, None)).key == "wiz_unsupported"


def test_url_button_accepts_text_pipe_url():
    assert parse_url_button("مشاهده سایت | https://example.com/a?b=1") == ("مشاهده سایت", "https://example.com/a?b=1")
    assert parse_url_button("a|b | http://x.io") == ("a|b", "http://x.io")
    assert parse_url_button("t" * 64 + " | https://e.com")[0] == "t" * 64


@pytest.mark.parametrize("text, key", [
    (None, "btn_err_format"), ("", "btn_err_format"), ("no pipe here", "btn_err_format"),
    ("| https://e.com", "btn_err_format"), ("text |", "btn_err_format"), (" | ", "btn_err_format"),
    ("t" * 65 + " | https://e.com", "btn_err_text_long"),
    ("t | https://e.com/" + "a" * 500, "btn_err_url_long"),
    ("t | ftp://e.com", "btn_err_url"), ("t | e.com", "btn_err_url"), ("t | https://", "btn_err_url"),
    ("t | https://e.com/a b", "btn_err_url"), ("t | javascript:alert(1)", "btn_err_url"),
    ("t | https://e.com:99999", "btn_err_url"), ("t | http:///path", "btn_err_url"),
    ("t | https://e.com/\x07", "btn_err_url"),
])
def test_url_button_refuses_bad_input(text, key):
    assert error_of(parse_url_button, text).key == key


@pytest.mark.parametrize("url, problem", [
    ("https://t.me/update_pack", None), ("http://example.com:8080/a?b=1#c", None), ("HTTPS://Sub.Example.IR", None),
    ("https://دانشگاه.ایران/", None), ("https://xn--mgba3a4f16a.xn--mgba3a4fra/", None), ("https://e.com.", None),
    ("https://intranet", "btn_err_url_host"), ("https://a/b", "btn_err_url_host"), ("https://a.b", "btn_err_url_host"),
    ("https://localhost:5000", "btn_err_url_host"), ("https://example.c0m", "btn_err_url_host"),
    ("https://1.2.3.4/x", "btn_err_url_host"), ("https://[::1]/", "btn_err_url_host"),
    ("https://a..com", "btn_err_url_host"), ("https://-a.com", "btn_err_url_host"), ("https://.", "btn_err_url_host"),
    ("tg://resolve?domain=x", "btn_err_url"), ("https://", "btn_err_url"), ("https://e.com:x", "btn_err_url"),
    ("https://e.com/" + "a" * 500, "btn_err_url_long"),
])
def test_the_one_url_check(url, problem):
    assert url_problem(url) == problem
