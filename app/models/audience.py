"""Who a broadcast reaches: a base audience plus optional filters (pure, stored on the job)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from app.models import names

AUDIENCES = ("all", "non_members", "members")
MEMBER_AUDIENCES = ("non_members", "members")
# fa / en: language_code starting with it; other: anything else, NULL included.
LANGS = ("fa", "en", "other")
# Ten years: a longer "active within" or "joined within" window is a typo, not a filter.
MAX_DAYS = 3650


def valid_source(value: object) -> bool:
    """Tell whether value is a source Telegram could have sent as a /start payload (names.source, untrimmed)."""
    try:
        return names.source(value) == value
    except names.BadName:
        return False


@dataclass(frozen=True)
class Audience:
    """A base audience and its filters; empty langs and None days mean "no filter"."""

    base: str = "all"
    langs: tuple[str, ...] = ()
    active_days: int | None = None
    joined_days: int | None = None
    sources: tuple[str, ...] = ()  # first /start payloads; several mean any of them

    def __post_init__(self) -> None:
        if self.base not in AUDIENCES:
            raise ValueError(f"audience must be one of {', '.join(AUDIENCES)}")
        unknown = set(self.langs) - set(LANGS)
        if unknown:
            raise ValueError(f"language must be one of {', '.join(LANGS)}")
        # One canonical order, so the same choice is always stored the same way.
        object.__setattr__(self, "langs", tuple(lang for lang in LANGS if lang in self.langs))
        object.__setattr__(self, "sources", tuple(sorted({names.source(source) for source in self.sources})))
        for name in ("active_days", "joined_days"):
            days = getattr(self, name)
            if days is not None and (type(days) is not int or not 1 <= days <= MAX_DAYS):
                raise ValueError(f"{name.replace('_', ' ')} must be a whole number from 1 to {MAX_DAYS}")

    @classmethod
    def of(cls, value: Audience | str) -> Audience:
        """Return value as an Audience (a bare base name has no filters)."""
        return value if isinstance(value, Audience) else cls(base=value)

    def columns(self) -> dict:
        """Return the job columns that store this audience."""
        return {"audience": self.base, "audience_langs": ",".join(self.langs) or None,
                "audience_active_days": self.active_days, "audience_joined_days": self.joined_days,
                "audience_sources": ",".join(self.sources) or None}

    def toggle_lang(self, lang: str) -> Audience:
        """Add or remove one language."""
        langs = set(self.langs) ^ {lang}
        return replace(self, langs=tuple(langs))

    def toggle_source(self, source: str) -> Audience:
        """Add or remove one source."""
        return replace(self, sources=tuple(set(self.sources) ^ {source}))

    def toggle_days(self, name: str, days: int) -> Audience:
        """Set a days filter to days, or clear it when it already is days."""
        return replace(self, **{name: None if getattr(self, name) == days else days})

    def __str__(self) -> str:
        """Return e.g. "all" or "members lang=fa,en active=7d joined=30d source=ad1" (audit details, logs)."""
        parts = [self.base]
        if self.langs:
            parts.append("lang=" + ",".join(self.langs))
        if self.active_days is not None:
            parts.append(f"active={self.active_days}d")
        if self.joined_days is not None:
            parts.append(f"joined={self.joined_days}d")
        if self.sources:
            parts.append("source=" + ",".join(self.sources))
        return " ".join(parts)

    @property
    def filtered(self) -> bool:
        """Tell whether any filter narrows the base audience."""
        return (bool(self.langs) or self.active_days is not None or self.joined_days is not None
                or bool(self.sources))
