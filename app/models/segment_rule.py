"""A segment's rule (audience, tags, fields, broadcast history) and a job's target (pure, stored as JSON)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from app.models import names
from app.models.audience import Audience

FIELD_OPS = ("=", "!=", "in")
MAX_TERMS = 50  # tags or values in one condition: more is a list to import, not a rule to type


@dataclass(frozen=True)
class FieldTest:
    """One custom-field condition: name = value, name != value (users without the field pass), name in values."""

    name: str
    op: str
    values: tuple[str, ...]

    def __post_init__(self) -> None:
        # The same rules as `users field set`: a rule typed (or stored) as Plan or a decomposed
        # تهران names the field and value the users carry.
        object.__setattr__(self, "name", names.field_name(self.name))
        if self.op not in FIELD_OPS:
            raise ValueError(f"field operator {self.op!r}: one of =, != or in")
        values = tuple(dict.fromkeys(names.field_value(v) for v in self.values))
        if not values or (self.op != "in" and len(values) != 1) or len(values) > MAX_TERMS:
            takes = "in takes 1 to 50 values" if self.op == "in" else "= and != take one value"
            raise ValueError(f"field {self.name}: {takes}")
        object.__setattr__(self, "values", values)

    def __str__(self) -> str:
        """Return e.g. "plan=gold", "plan!=free" or "city in تهران,شیراز"."""
        return f"{self.name} in {','.join(self.values)}" if self.op == "in" else f"{self.name}{self.op}{self.values[0]}"


@dataclass(frozen=True)
class Rule:
    """Who a segment holds: a base audience with its filters, and tag, field and history conditions (all ANDed)."""

    audience: Audience = field(default_factory=Audience)
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    tags_none: tuple[str, ...] = ()
    fields: tuple[FieldTest, ...] = ()
    received: tuple[int, ...] = ()      # got broadcast N (or a retry of it)
    clicked: tuple[int, ...] = ()       # clicked its button
    not_clicked: tuple[int, ...] = ()   # got it and did not click
    # Read back from storage (from_json): a tag the rule now refuses is kept as stored, never raised on.
    stored: bool = field(default=False, compare=False, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        # names.tag, as for users' tags: a rule read back from an older save is normalised here too.
        normal = names.stored_tag if self.stored else names.tag
        for name in ("tags_any", "tags_all", "tags_none"):
            tags = tuple(sorted({normal(t) for t in getattr(self, name)}))
            if len(tags) > MAX_TERMS:
                raise ValueError(f"at most {MAX_TERMS} tags in one condition")
            object.__setattr__(self, name, tags)
        for name in ("received", "clicked", "not_clicked"):
            ids = tuple(sorted(set(getattr(self, name))))
            if any(type(i) is not int or i < 1 for i in ids):
                raise ValueError("a broadcast is named by its job id, a positive whole number")
            object.__setattr__(self, name, ids)

    @property
    def job_ids(self) -> tuple[int, ...]:
        """Every broadcast the rule names."""
        return tuple(sorted({*self.received, *self.clicked, *self.not_clicked}))

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag the rule names."""
        return tuple(sorted({*self.tags_any, *self.tags_all, *self.tags_none}))

    @property
    def narrowed(self) -> bool:
        """Tell whether anything beyond the base audience narrows the rule."""
        return self.audience.filtered or bool(self.tags or self.fields or self.job_ids)

    def to_json(self) -> dict:
        """Return the rule's JSON object (only what is set)."""
        a = self.audience
        data = {"base": a.base, "langs": list(a.langs), "active_days": a.active_days,
                "joined_days": a.joined_days, "sources": list(a.sources),
                "tags_any": list(self.tags_any), "tags_all": list(self.tags_all), "tags_none": list(self.tags_none),
                "fields": [[f.name, f.op, list(f.values)] for f in self.fields],
                "received": list(self.received), "clicked": list(self.clicked), "not_clicked": list(self.not_clicked)}
        return {key: value for key, value in data.items() if value not in (None, [])}

    @classmethod
    def from_json(cls, data: dict) -> Rule:
        """Load a rule stored by to_json (raises ValueError for anything no rule holds)."""
        audience = Audience(data.get("base", "all"), tuple(data.get("langs", ())), data.get("active_days"),
                            data.get("joined_days"), tuple(data.get("sources", ())))
        tests = tuple(FieldTest(n, o, tuple(v)) for n, o, v in data.get("fields", ()))
        return cls(audience, tuple(data.get("tags_any", ())), tuple(data.get("tags_all", ())),
                   tuple(data.get("tags_none", ())), tests,
                   tuple(data.get("received", ())), tuple(data.get("clicked", ())), tuple(data.get("not_clicked", ())),
                   stored=True)

    def __str__(self) -> str:
        """Return a one-line summary, e.g. "all lang=fa tag-any=vip plan=gold received=12"."""
        parts = [str(self.audience)]
        for name in ("tags_any", "tags_all", "tags_none"):
            if getattr(self, name):
                parts.append(f"tag-{name[5:]}=" + ",".join(map(_shown, getattr(self, name))))
        parts += [str(f) for f in self.fields]
        for name in ("received", "clicked", "not_clicked"):
            if getattr(self, name):
                parts.append(name.replace("_", "-") + "=" + ",".join(map(str, getattr(self, name))))
        return " ".join(parts)


def _shown(tag: str) -> str:
    """Return a tag as a summary prints it: quoted (invisible characters escaped) when the rule refuses it."""
    return tag if _valid(tag) else names.quote(tag)


def _valid(tag: str) -> bool:
    """Tell whether tag is one the tag rule accepts as it is."""
    try:
        return names.tag(tag) == tag
    except names.BadName:
        return False


@dataclass(frozen=True)
class Target:
    """What a job was created for: a rule (a segment's, or the plain audience) less the users of excluded rules.

    Stored whole on the job at creation, so a later edit or delete of a segment changes no job.
    """

    include: Rule
    segment: str | None = None                       # the segment the rule came from (None: --audience)
    excludes: tuple[tuple[str, Rule], ...] = ()      # (segment name, its rule), in the order given

    def to_json(self) -> str:
        """Return the snapshot stored in broadcast_jobs.audience_rule."""
        return json.dumps({"segment": self.segment, "rule": self.include.to_json(),
                           "exclude": [{"segment": n, "rule": r.to_json()} for n, r in self.excludes]},
                          ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> Target:
        """Load a job's snapshot."""
        data = json.loads(raw)
        return cls(Rule.from_json(data["rule"]), data.get("segment"),
                   tuple((e["segment"], Rule.from_json(e["rule"])) for e in data.get("exclude", ())))

    @property
    def exclude_names(self) -> tuple[str, ...]:
        """The excluded segments' names."""
        return tuple(name for name, _ in self.excludes)

    def __str__(self) -> str:
        """Return e.g. "segment=vip exclude=churned,staff" or "all lang=fa exclude=staff" (audit details, logs)."""
        head = f"segment={self.segment}" if self.segment else str(self.include)
        return head + (" exclude=" + ",".join(self.exclude_names) if self.excludes else "")
