"""The broadcast wizard's draft: what an admin chose so far, in the JSON form admin_states keeps between taps.

The JSON keys are the ones the wizard has always stored, so a draft saved
before a deploy still loads after it (and the other way round). A key left
at its default is not written (readers take a missing key as the default);
a key this version does not know is carried along unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from app.models.audience import Audience


@dataclass(frozen=True)
class Draft:
    """One admin's broadcast in the making, and the ids that bind the buttons on screen to it."""

    draft_id: str | None = None     # carried by "no button" and the audience buttons (new on each /broadcast)
    content: dict | None = None     # the engine's content dict: a copy, a personalised text or an album
    button_text: str | None = None
    button_url: str | None = None
    audience: str | None = None     # the base audience ("all" when none was chosen) ...
    filters: dict | None = None     # ... and its filters: {"langs": [...], "active_days": n, "joined_days": n,
    #                                 "sources": [...]}
    segment_id: int | None = None   # a saved segment as the audience (app.services.audience.segments) ...
    exclude_ids: list | None = None  # ... and segments whose users are left out (ids: a button carries them)
    variants: dict | None = None    # language variants, {code: text or caption} (content/variants.py)
    ab: dict | None = None          # an A/B test: {"versions": [HTML, ...], "share": %, "wait": s} (bot/ab_step.py)
    tap: dict | None = None         # a tag-on-tap button: {"text", "tag", "answer"} (app/services/audience/tap.py)
    keyboard: dict | None = None    # rows of url, copy, tap and menu buttons (content/keyboard.py)
    silent: bool = False
    protect: bool = False
    urgent: bool = False            # sent through quiet hours
    unsubscribe: bool | None = None  # the unsubscribe button under each copy (None: the setting's default)
    expire_after: int | None = None  # auto-expiry: each copy deleted for everyone T seconds after it was sent
    paid_ok: bool = False           # a paid broadcast's first Confirm was pressed
    preview_id: str | None = None   # carried by the pre-send screen's toggles, schedule and abort
    confirm_id: str | None = None   # carried by its Confirm alone
    sched_token: str | None = None  # carried by the schedule presets
    extra: dict = field(default_factory=dict)  # keys this version does not know

    @classmethod
    def from_json(cls, data: dict) -> Draft:
        """Load a draft from its JSON object; missing keys take their defaults."""
        known = {f.name for f in fields(cls)} - {"extra"}
        values = {key: value for key, value in data.items() if key in known}
        for flag in ("silent", "protect", "paid_ok", "urgent"):
            values[flag] = bool(values.get(flag))
        return cls(**values, extra={key: value for key, value in data.items() if key not in known})

    def to_json(self) -> dict:
        """Return the JSON object to store: the unknown keys as they came, then every field not at its default."""
        data = dict(self.extra)
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "extra" and value != f.default:
                data[f.name] = value
        return data

    @property
    def target(self) -> Audience:
        """Return the audience with its filters (raises ValueError for a stored value no audience has)."""
        f = self.filters or {}
        return Audience(self.audience or "all", tuple(f.get("langs") or ()), f.get("active_days"),
                        f.get("joined_days"), tuple(f.get("sources") or ()))

    def with_target(self, audience: Audience) -> Draft:
        """Return the draft holding audience (base and filters) in JSON form."""
        filters = {"langs": list(audience.langs), "active_days": audience.active_days,
                   "joined_days": audience.joined_days}
        if audience.sources:  # written only when chosen: a draft without it reads the same in an older version
            filters["sources"] = list(audience.sources)
        return replace(self, audience=audience.base, filters=filters)

    def without_preview(self) -> Draft:
        """Return the draft without its preview ids and paid confirmation (nothing on screen confirms it)."""
        return replace(self, preview_id=None, confirm_id=None, paid_ok=False)

    @property
    def content_type(self) -> str | None:
        """Return the content's type: copy, text or album (None before the message step)."""
        return (self.content or {}).get("type")
