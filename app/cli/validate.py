"""Checks of broadcast input typed on the command line (pure)."""
from __future__ import annotations

from html.parser import HTMLParser

from app.services.broadcast.button_url import url_problem
from app.texts import t

MAX_TEXT = 4096
MAX_BUTTON_TEXT = 64
# The tags Telegram's HTML parse mode understands; anything else is refused there too.
TELEGRAM_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler",
                 "a", "code", "pre", "blockquote", "tg-emoji"}


class _TagBalance(HTMLParser):
    """Track open tags and remember the first problem."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problem: str | None = None

    def handle_starttag(self, tag, attrs):
        if self.problem is None and tag not in TELEGRAM_TAGS:
            self.problem = f"unsupported tag <{tag}> (Telegram HTML allows {', '.join(sorted(TELEGRAM_TAGS))})"
        self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.problem = self.problem or f"self-closing tag <{tag}/> is not Telegram HTML"

    def handle_endtag(self, tag):
        if self.problem is not None:
            return
        if not self.stack:
            self.problem = f"closing tag </{tag}> has no opening tag"
        elif self.stack[-1] != tag:
            self.problem = f"</{tag}> closes <{self.stack[-1]}>"
        else:
            self.stack.pop()


def html_problem(text: str) -> str | None:
    """Return why text is not well-formed Telegram HTML, or None."""
    parser = _TagBalance()
    parser.feed(text)
    parser.close()
    if parser.problem is None and parser.stack:
        parser.problem = f"unclosed tag <{parser.stack[-1]}>"
    return parser.problem


def text_problem(text: str) -> str | None:
    """Return why text cannot be broadcast as an HTML message, or None."""
    if not text.strip():
        return "text is empty"
    if len(text) > MAX_TEXT:
        return f"text is {len(text)} characters; Telegram allows {MAX_TEXT}"
    problem = html_problem(text)
    return f"broken HTML: {problem}" if problem else None


def button_problem(text: str | None, url: str | None) -> str | None:
    """Return why the optional URL button is unusable, or None."""
    if (text is None) != (url is None):
        return "give both --button-text and --button-url, or neither"
    if text is None:
        return None
    if not text.strip() or len(text) > MAX_BUTTON_TEXT:
        return f"button text must be 1..{MAX_BUTTON_TEXT} characters"
    problem = url_problem(url.strip())
    return f"--button-url {url.strip()!r}: {t(problem, 'en', length=len(url.strip()))}" if problem else None
