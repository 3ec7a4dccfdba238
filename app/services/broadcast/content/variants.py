"""Language variants of one broadcast (pure): per-language texts beside the default content, checked and matched.

A variant is keyed by a two-letter language code (ISO 639-1, lower case) and
holds the HTML text of a text broadcast, or the caption that replaces a copied
media message's own. A recipient gets the variant whose code starts their
Telegram language code, the same prefix match the audience filters use
(app.repository.broadcast_population._lang_is: 'en-US' is 'en'); anyone else gets
the default. Albums take no variants: copyMessages cannot replace captions.
"""
from __future__ import annotations

import json
import re

from app.models.broadcast import CONTENT_ALBUM, CONTENT_COPY, CONTENT_TEXT
from app.services.broadcast.content import placeholders, text_rules

# Telegram's language_code is an IETF tag whose first part names the language ("en", "en-US", "pt-br").
LANG_CODE = re.compile(r"[a-z]{2}", re.ASCII)
MAX_VARIANTS = 8
# The ledger's and the status's name for the default content (an item's variant column is NULL).
DEFAULT = "default"
# A copy content's mark that its source is known to be a media message, whose caption a variant replaces.
# copyMessage drops a caption given for a copied text message: without the mark, every language would get
# the default text. The wizard sets it (it saw the message); the CLI only on --copied-media.
MEDIA = "media"


class VariantRefused(ValueError):
    """A variant cannot be used; the message says why in English, key and values name the admin's text."""

    def __init__(self, message: str, key: str, **values):
        super().__init__(message)
        self.key, self.values = key, values


def normalise_code(raw: object) -> str:
    """Return a variant's language code in lower case, or raise VariantRefused for anything but two letters."""
    code = str(raw or "").strip().lower()
    if not LANG_CODE.fullmatch(code):
        raise VariantRefused(f"language code {str(raw)[:20]!r}: two letters such as en, ar, ru (the first part of "
                             f"a Telegram language code)", "var_bad_code", code=str(raw)[:20])
    return code


def matches(language_code: str | None, code: str) -> bool:
    """Tell whether a user's Telegram language code takes variant `code` (prefix, case-insensitive, as the filters)."""
    return bool(language_code) and language_code.lower().startswith(code)


def variant_for(language_code: str | None, codes) -> str | None:
    """Return the variant a user with this language code gets, or None for the default."""
    return next((code for code in codes if matches(language_code, code)), None)


def limit_for(content_type: str) -> int:
    """Return the longest variant Telegram takes for this content: a text's 4096, a caption's 1024."""
    return text_rules.TEXT_LIMIT if content_type == CONTENT_TEXT else text_rules.CAPTION_LIMIT


def check(pairs, content_type: str, default_text: str | None = None) -> dict[str, str]:
    """Return the variants as {code: checked HTML}, in the given order, or raise VariantRefused (a ValueError).

    pairs: (code, text) pairs or a dict. Refused: a bad or repeated code, more
    than MAX_VARIANTS, an album, a text Telegram would refuse (HTML, length as
    text_rules counts it), a text equal to the default's, a placeholder in a
    copy's caption (a copy cannot differ per recipient: placeholders.check).
    """
    pairs = list(pairs.items() if isinstance(pairs, dict) else pairs)
    if not pairs:
        return {}
    if content_type == CONTENT_ALBUM:
        raise VariantRefused("an album takes no language variants (copyMessages cannot change its captions); "
                             "send one album per language with a language filter instead", "var_album")
    if content_type not in (CONTENT_TEXT, CONTENT_COPY):
        raise VariantRefused("language variants need a text or a copied message", "var_album")
    if len(pairs) > MAX_VARIANTS:
        raise VariantRefused(f"at most {MAX_VARIANTS} language variants, got {len(pairs)}", "var_too_many",
                             max=MAX_VARIANTS)
    what = "text" if content_type == CONTENT_TEXT else "caption"
    out: dict[str, str] = {}
    for raw_code, text in pairs:
        code = normalise_code(raw_code)
        if code in out:
            raise VariantRefused(f"the {code} variant is given twice; give each language once", "var_twice",
                                 code=code)
        try:
            html = text_rules.check(text, limit_for(content_type), f"{code} {what}")
        except text_rules.TextRefused as exc:
            raise VariantRefused(f"the {code} variant: {exc}", "var_text_refused", code=code,
                                 reason=str(exc)) from None
        try:
            placeholders.check(html, content_type == CONTENT_TEXT, f"the {code} variant")
        except placeholders.PlaceholderRefused as exc:
            raise VariantRefused(str(exc), "var_copy_greeting", code=code) from None
        if default_text is not None and html == default_text.strip():
            raise VariantRefused(f"the {code} variant is the same as the default text; leave it out (everyone "
                                 f"without a variant gets the default)", "var_same", code=code)
        out[code] = html
    return out


def check_cli_pairs(pairs, content: dict) -> dict[str, str]:
    """Check variants given for an engine content dict (the CLI's --variant LANG TEXT pairs); see check()."""
    return require_known_media(check(pairs, content.get("type"), content.get("text")), content)


def require_known_media(checked: dict[str, str], content: dict) -> dict[str, str]:
    """Return checked, or raise VariantRefused for variants of a copy not marked MEDIA (it may be a text message)."""
    if checked and content.get("type") == CONTENT_COPY and not content.get(MEDIA):
        raise VariantRefused("a copied message takes language variants only as captions of a media message, and "
                             "this one's kind is not known (a copied text message keeps its text: every language "
                             "would get the default); send a text with --text, or add --copied-media if the "
                             "message is a photo, video, document or other media with a caption", "var_copy_unknown")
    return checked


def dump(variants: dict[str, str] | None) -> str | None:
    """Return the job column's JSON (non-ASCII kept as is), or None when there is none."""
    return json.dumps(variants, ensure_ascii=False) if variants else None


def load(raw: str | None) -> dict[str, str]:
    """Return a job's variants column as {code: text} (empty when it has none)."""
    return json.loads(raw) if raw else {}


def of(job) -> dict[str, str]:
    """Return a job's variants as {code: text}."""
    return load(job.variants)


def label(code: str | None) -> str:
    """Return the ledger's and status's name of a variant (the default's is DEFAULT)."""
    return code or DEFAULT
