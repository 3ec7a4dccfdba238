"""Pure checks of broadcast input typed on the command line."""
import pytest

from app.cli.validate import button_problem, text_problem
from app.services.broadcast.content.text_rules import TEXT_LIMIT


@pytest.mark.parametrize("text", [
    "plain", "<b>bold</b> and <i>italic</i>", '<a href="https://t.me/x">link</a>', "a &lt; b &amp; c",
    "<blockquote>quote</blockquote>", '<span class="tg-spoiler">s</span>', "<b>سلام</b> 👋",
])
def test_telegram_html_passes(text):
    assert text_problem(text) is None


@pytest.mark.parametrize("text, problem", [
    ("<b>open", 'Can\'t find end tag corresponding to start tag "b"'),
    ("close</i>", "Unexpected end tag"),
    ("<b><i>x</b></i>", 'expected "</i>", found "</b>"'),
    ("<div>x</div>", 'Unsupported start tag "div"'),
    ("line<br/>", 'Unsupported start tag "br/"'),
    ("Tom & Jerry", 'Character "&" must be escaped as "&amp;"'),
    ("a < b", 'Unsupported start tag ""'),
])
def test_broken_html_is_named_as_telegram_names_it(text, problem):
    assert text_problem(text).startswith("broken HTML (Telegram: can't parse entities): ")
    assert problem in text_problem(text)


def test_text_must_be_non_empty_and_fit_telegram_in_utf16_units_of_what_it_shows():
    assert text_problem("  \n") == "the text is empty"
    assert text_problem("<b> </b>") == "the text is empty"
    assert text_problem("x" * TEXT_LIMIT) is None
    assert text_problem("<b>" + "&amp;" * TEXT_LIMIT + "</b>") is None
    assert "4097 characters" in text_problem("x" * (TEXT_LIMIT + 1))
    assert "4098 characters" in text_problem("🎉" * 2049)


@pytest.mark.parametrize("text, url, ok", [
    (None, None, True), ("Open", "https://t.me/update_pack", True), ("Open", "http://example.com/a?b=1", True),
    ("Open", None, False), (None, "https://t.me/x", False), ("Open", "ftp://example.com", False),
    ("Open", "https://", False), ("Open", "t.me/x", False), ("", "https://t.me/x", False),
    ("x" * 65, "https://t.me/x", False),
])
def test_button_needs_both_parts_and_an_http_url(text, url, ok):
    assert (button_problem(text, url) is None) is ok
