"""Telegram's HTML parse mode (pure): validate a text and derive what Telegram shows, its plain text and entities.

It behaves like Telegram's parser (the same refusals, in Telegram's words), so
the app can refuse before sending what Telegram would refuse for every
recipient; the simulated Bot API parses with it too.
"""

from __future__ import annotations

import re
from functools import lru_cache

# tag -> entity type; None means the tag is allowed but yields no entity by itself.
_ENTITY_TYPE = {
    "b": "bold", "strong": "bold", "i": "italic", "em": "italic",
    "u": "underline", "ins": "underline", "s": "strikethrough", "strike": "strikethrough",
    "del": "strikethrough", "tg-spoiler": "spoiler", "span": "spoiler", "a": "text_link",
    "code": "code", "pre": "pre", "blockquote": "blockquote", "tg-emoji": "custom_emoji",
}
_SPECIAL = re.compile(r"[<&]")
_ENTITY = re.compile(r"&(?:(lt|gt|amp|quot)|#([0-9]{1,8})|#[xX]([0-9a-fA-F]{1,8}));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_TAG_NAME = re.compile(r"[^\s>]*")
_TAG_END = re.compile(r"\s*>")
_ATTR = re.compile(r"""\s+([^\s=>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9.\-]+)))?""")
_CLOSE = re.compile(r"</([^\s>]*)\s*>")

# (type, utf16 offset, utf16 length, ((extra key, value), ...))
Entity = tuple[str, int, int, tuple[tuple[str, str], ...]]


class HtmlError(ValueError):
    """Invalid Telegram HTML; str() is the text after "can't parse entities: "."""


def utf16_len(text: str) -> int:
    """Count UTF-16 code units, as Telegram measures text."""
    return len(text.encode("utf-16-le")) // 2


@lru_cache(maxsize=512)
def parse_html(text: str) -> tuple[str, tuple[Entity, ...]]:
    """Return (plain text, entities) or raise HtmlError like Telegram's parser."""
    # Cached: a broadcast sends one text to thousands of chats.
    return _Parser(text).run()


def _unescape(value: str) -> str:
    """Decode the entities Telegram accepts inside an attribute value."""
    return _ENTITY.sub(lambda m: _decode(m) or m.group(0), value)


def _decode(match: re.Match) -> str | None:
    """Return the character an entity match stands for, or None if invalid."""
    named, dec, hexa = match.groups()
    if named:
        return _NAMED[named]
    code = int(dec) if dec else int(hexa, 16)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return None
    return chr(code)


class _Parser:
    """One pass over the markup, keeping a stack of open tags."""

    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.pos16 = 0
        self.stack: list[tuple[str, str | None, tuple, int]] = []
        self.entities: list[Entity] = []

    def run(self) -> tuple[str, tuple[Entity, ...]]:
        """Parse the whole text."""
        text, i, n = self.text, 0, len(self.text)
        while i < n:
            match = _SPECIAL.search(text, i)
            j = match.start() if match else n
            if j > i:
                self._emit(text[i:j])
            if match is None:
                break
            if text[j] == "&":
                i = self._entity(j)
            elif text.startswith("</", j):
                i = self._close(j)
            else:
                i = self._open(j)
        if self.stack:
            raise HtmlError(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1][0]}"')
        self.entities.sort(key=lambda e: (e[1], -e[2]))
        return "".join(self.out), tuple(self.entities)

    def _emit(self, chunk: str) -> None:
        self.out.append(chunk)
        self.pos16 += utf16_len(chunk)

    def _error(self, message: str, index: int) -> HtmlError:
        offset = len(self.text[:index].encode("utf-8"))
        return HtmlError(message.replace("{offset}", str(offset)))

    def _entity(self, j: int) -> int:
        """Decode "&...;" at j; a bare "&" is rejected (the Bot API says escape it)."""
        match = _ENTITY.match(self.text, j)
        char = _decode(match) if match else None
        if char is None:
            raise self._error('Character "&" must be escaped as "&amp;" at byte offset {offset}', j)
        self._emit(char)
        return match.end()

    def _open(self, j: int) -> int:
        """Parse a start tag at j and push it."""
        text = self.text
        k = _TAG_NAME.match(text, j + 1).end()
        if k >= len(text):
            raise self._error("Unclosed start tag at byte offset {offset}", j)
        name = text[j + 1:k].lower()
        if name not in _ENTITY_TYPE:
            raise self._error(f'Unsupported start tag "{name}" at byte offset {{offset}}', j)
        attrs: dict[str, str] = {}
        while not (end := _TAG_END.match(text, k)):
            attr = _ATTR.match(text, k)
            if attr is None:
                raise self._error("Unclosed start tag at byte offset {offset}", j)
            key = attr.group(1).lower()
            value = next((g for g in attr.groups()[1:] if g is not None), None)
            if value is None and not (name == "blockquote" and key == "expandable"):
                raise self._error("Expected equal sign in declaration of an attribute of the "
                                  f'tag "{name}" at byte offset {{offset}}', j)
            attrs[key] = _unescape(value or "")
            k = attr.end()
        kind, extra = self._entity_kind(name, attrs, j)
        self.stack.append((name, kind, extra, self.pos16))
        return end.end()

    def _entity_kind(self, name: str, attrs: dict, j: int) -> tuple[str | None, tuple]:
        """Return the entity type and extra fields a start tag produces."""
        if name == "span" and attrs.get("class") != "tg-spoiler":
            raise self._error('Tag "span" must have class "tg-spoiler" at byte offset {offset}', j)
        if name == "a":
            href = attrs.get("href", "")
            return ("text_link", (("url", href),)) if href else (None, ())
        if name == "tg-emoji":
            emoji_id = attrs.get("emoji-id", "")
            if not emoji_id.isdigit():
                raise self._error("Custom emoji entity must contain a valid custom emoji "
                                  "identifier at byte offset {offset}", j)
            return "custom_emoji", (("custom_emoji_id", emoji_id),)
        if name == "blockquote" and "expandable" in attrs:
            return "expandable_blockquote", ()
        return _ENTITY_TYPE[name], ()

    def _close(self, j: int) -> int:
        """Parse an end tag at j and pop the tag it closes."""
        if not self.stack:
            raise self._error("Unexpected end tag at byte offset {offset}", j)
        match = _CLOSE.match(self.text, j)
        if match is None:
            raise self._error("Unclosed end tag at byte offset {offset}", j)
        end_name = match.group(1).lower()
        name, kind, extra, start = self.stack[-1]
        if end_name and end_name != name:
            raise self._error(f'Unmatched end tag at byte offset {{offset}}, expected "</{name}>", '
                              f'found "</{end_name}>"', j)
        self.stack.pop()
        if kind and self.pos16 > start:
            self.entities.append((kind, start, self.pos16 - start, extra))
        return match.end()
