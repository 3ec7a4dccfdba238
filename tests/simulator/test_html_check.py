"""Telegram-HTML validation: accepted markup, entity offsets and rejected markup."""

from __future__ import annotations

import pytest

from app.simulator.html_check import HtmlError, entity_dicts, parse_html, utf16_len

VALID = [
    "<b>bold</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u> <ins>n</ins>",
    "<s>a</s> <strike>b</strike> <del>c</del> <span class=\"tg-spoiler\">x</span>",
    "<tg-spoiler>hidden</tg-spoiler> <a href=\"https://t.me/x?a=1&amp;b=2\">link</a>",
    "<code>x &lt; y</code> <pre><code class=\"language-python\">print(1)</code></pre>",
    "<blockquote>q</blockquote> <blockquote expandable>long</blockquote>",
    "<tg-emoji emoji-id=\"5368324170671202286\">👍</tg-emoji>",
    "&lt;&gt;&amp;&quot; &#1587; &#x1F600;",
    "<b>nested <i>ok <u>deep</u></i></b>",
    "<B>upper</B> a > b",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_markup_parses(text):
    plain, entities = parse_html(text)
    assert "</" not in plain and "&amp;" not in plain
    assert all(e[2] > 0 for e in entities)


def test_entities_and_decoding():
    plain, entities = parse_html('<b>Hi</b> <a href="https://a.b/?x=1&amp;y=2">go</a> &lt;3')
    assert plain == "Hi go <3"
    assert entity_dicts(entities) == [
        {"type": "bold", "offset": 0, "length": 2},
        {"type": "text_link", "offset": 3, "length": 2, "url": "https://a.b/?x=1&y=2"},
    ]


def test_persian_and_emoji_offsets_are_utf16():
    plain, entities = parse_html("😀 <b>سلام دنیا</b> 🎉<i>!</i>")
    assert plain == "😀 سلام دنیا 🎉!"
    bold, italic = entity_dicts(entities)
    assert bold == {"type": "bold", "offset": 3, "length": 9}
    assert italic == {"type": "italic", "offset": 15, "length": 1}
    assert utf16_len("😀") == 2 and utf16_len("سلام") == 4


def test_expandable_blockquote_and_custom_emoji():
    _, entities = parse_html('<blockquote expandable>x</blockquote><tg-emoji emoji-id="1">y</tg-emoji>')
    kinds = [e["type"] for e in entity_dicts(entities)]
    assert kinds == ["expandable_blockquote", "custom_emoji"]


@pytest.mark.parametrize(("text", "message"), [
    ("<foo>", 'Unsupported start tag "foo" at byte offset 0'),
    ("سلام <br>", 'Unsupported start tag "br" at byte offset 9'),
    ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
    ("x</b>", "Unexpected end tag at byte offset 1"),
    ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
    ("<b", "Unclosed start tag at byte offset 0"),
    ("<b>x</b", "Unclosed end tag at byte offset 4"),
    ("1 < 2", 'Unsupported start tag "" at byte offset 2'),
    ("a & b", 'Character "&" must be escaped as "&amp;" at byte offset 2'),
    ("&nbsp;", 'Character "&" must be escaped as "&amp;" at byte offset 0'),
    ('<span class="x">y</span>', 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ("<a href>x</a>", 'Expected equal sign in declaration of an attribute of the tag "a" '
                      "at byte offset 0"),
])
def test_invalid_markup_is_rejected(text, message):
    with pytest.raises(HtmlError) as info:
        parse_html(text)
    assert str(info.value) == message
