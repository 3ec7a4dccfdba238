"""A segment's rule (audience, tags, fields, broadcast history) and a job's target (pure, stored as JSON)."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from app.models.audience import Audience
from app.models.segment import SEGMENT_NAME_MAX
from app.models.user_data import FIELD_VALUE_MAX, TAG_MAX, allowed_in_tag, fold_tag, fold_value

RULE_FIELD = re.compile(r"[a-z0-9_]{1,64}", re.ASCII)
# A segment's name: what an admin types after `segments show` and sees on a button.
SEGMENT_NAME = re.compile(rf"[\w-]{{1,{SEGMENT_NAME_MAX}}}")
FIELD_OPS = ("=", "!=", "in")
MAX_TERMS = 50  # tags or values in one condition: more is a list to import, not a rule to type


def rule_tag(value: str) -> str:
    """Return value as the tag a rule compares, folded as users' tags are stored; ValueError saying what is wrong."""
    tag = fold_tag(value)
    if not 0 < len(tag) <= TAG_MAX or not all(allowed_in_tag(ch) for ch in tag):
        raise ValueError(f"tag {value[:70]!r}: 1 to {TAG_MAX} letters, digits, _ or -")
    return tag


def segment_name(value: str) -> str:
    """Return value as a segment name, or raise ValueError saying what is wrong."""
    if not SEGMENT_NAME.fullmatch(value or ""):
        raise ValueError(f"segment name {value[:70]!r}: 1 to {SEGMENT_NAME_MAX} letters, digits, _ or - "
                         "(no spaces)")
    return value


@dataclass(frozen=True)
class FieldTest:
    """One custom-field condition: name = value, name != value (users without the field pass), name in values."""

    name: str
    op: str
    values: tuple[str, ...]

    def __post_init__(self) -> None:
        if not RULE_FIELD.fullmatch(self.name):
            raise ValueError(f"field name {self.name[:70]!r}: 1 to 64 of a-z, 0-9 and _")
        if self.op not in FIELD_OPS:
            raise ValueError(f"field operator {self.op!r}: one of =, != or in")
        values = tuple(dict.fromkeys(fold_value(v) for v in self.values))  # compared as users' values are stored
        if not values or (self.op != "in" and len(values) != 1) or len(values) > MAX_TERMS:
            takes = "in takes 1 to 50 values" if self.op == "in" else "= and != take one value"
            raise ValueError(f"field {self.name}: {takes}")
        if any(len(v) > FIELD_VALUE_MAX for v in values):
            raise ValueError(f"field {self.name}: a value is at most {FIELD_VALUE_MAX} characters")
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

    def __post_init__(self) -> None:
        for name in ("tags_any", "tags_all", "tags_none"):
            tags = tuple(sorted({rule_tag(t) for t in getattr(self, name)}))
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
                   tuple(data.get("received", ())), tuple(data.get("clicked", ())), tuple(data.get("not_clicked", ())))

    def __str__(self) -> str:
        """Return a one-line summary, e.g. "all lang=fa tag-any=vip plan=gold received=12"."""
        parts = [str(self.audience)]
        for name in ("tags_any", "tags_all", "tags_none"):
            if getattr(self, name):
                parts.append(f"tag-{name[5:]}=" + ",".join(getattr(self, name)))
        parts += [str(f) for f in self.fields]
        for name in ("received", "clicked", "not_clicked"):
            if getattr(self, name):
                parts.append(name.replace("_", "-") + "=" + ",".join(map(str, getattr(self, name))))
        return " ".join(parts)


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
