"""Pure checks of broadcast input typed on the command line."""
import pytest

from app.cli.validate import MAX_TEXT, button_problem, html_problem, text_problem


@pytest.mark.parametrize("text", [
    "plain", "<b>bold</b> and <i>italic</i>", '<a href="https://t.me/x">link</a>', "a < b &amp; c",
    "<blockquote>quote</blockquote>", '<span class="tg-spoiler">s</span>', "<b>سلام</b> 👋",
])
def test_telegram_html_passes(text):
    assert text_problem(text) is None


@pytest.mark.parametrize("text, problem", [
    ("<b>open", "unclosed tag <b>"),
    ("close</i>", "closing tag </i> has no opening tag"),
    ("<b><i>x</b></i>", "</b> closes <i>"),
    ("<div>x</div>", "unsupported tag <div>"),
    ("line<br/>", "self-closing tag <br/>"),
])
def test_broken_html_is_named(text, problem):
    assert problem in html_problem(text)
    assert text_problem(text).startswith("broken HTML: ")


def test_text_must_be_non_empty_and_fit_telegram():
    assert text_problem("  \n") == "text is empty"
    assert text_problem("x" * MAX_TEXT) is None
    assert "4097 characters" in text_problem("x" * (MAX_TEXT + 1))


@pytest.mark.parametrize("text, url, ok", [
    (None, None, True), ("Open", "https://t.me/update_pack", True), ("Open", "http://example.com/a?b=1", True),
    ("Open", None, False), (None, "https://t.me/x", False), ("Open", "ftp://example.com", False),
    ("Open", "https://", False), ("Open", "t.me/x", False), ("", "https://t.me/x", False),
    ("x" * 65, "https://t.me/x", False),
])
def test_button_needs_both_parts_and_an_http_url(text, url, ok):
    assert (button_problem(text, url) is None) is ok
