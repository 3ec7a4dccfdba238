"""Turn an operator's words into a segment rule: --field specs, and the checks a saved rule must pass."""
from __future__ import annotations

import re

from app.models import names
from app.models.broadcast import KIND_SEND
from app.models.segment_rule import FieldTest, Rule
from app.repository import segments as repo
from app.services.broadcast.jobs.status import clicks_counted

# "plan=gold", "plan!=free" (or ≠), "city in تهران,شیراز": name, operator, value(s).
_FIELD_SPEC = re.compile(r"\s*([^\s=!≠]+)(\s*!=\s*|\s*≠\s*|\s*=\s*|\s+in\s+)(.*)\Z", re.S)


class RuleRefused(ValueError):
    """A rule that cannot be saved or used; the message is the one line the operator reads."""


def parse_field(spec: str) -> FieldTest:
    """Parse one --field spec, or raise RuleRefused naming what is wrong."""
    match = _FIELD_SPEC.match(spec)
    if match is None:
        raise RuleRefused(f"--field {names.quote(spec[:70])}: write NAME=VALUE, NAME!=VALUE or 'NAME in V1,V2'")
    name, op, value = match.group(1), match.group(2).strip(), match.group(3).strip()  # a value keeps inner spaces
    op = "!=" if op == "≠" else op
    values = [v.strip() for v in value.split(",")] if op == "in" else [value]
    if not all(values):
        raise RuleRefused(f"--field {names.quote(spec[:70])}: a value is missing (an empty value matches nobody)")
    try:
        return FieldTest(name, op, tuple(values))
    except ValueError as exc:
        raise RuleRefused(f"--field {names.quote(spec[:70])}: {exc}") from None


def check_usable(rule: Rule) -> None:
    """Refuse a rule with no condition, or one naming a broadcast that does not exist or is not a send.

    --clicked / --not-clicked of a broadcast whose clicks were not counted
    (made without PUBLIC_URL: its job view says "not counted") is refused: no
    one clicked as far as the database knows, so "did not click" would be
    everyone who received it.
    """
    if rule.audience.base == "all" and not rule.narrowed:
        raise RuleRefused("the rule has no condition: give at least one of --base members/non_members, --lang, "
                          "--active-days, --joined-days, --source, --tag-*, --field, --received, --clicked, "
                          "--not-clicked")
    jobs = repo.jobs_named(rule.job_ids) if rule.job_ids else {}
    for job_id in rule.job_ids:
        if job_id not in jobs:
            raise RuleRefused(f"no broadcast job {job_id} (see `flask --app wsgi broadcast list`)")
        if jobs[job_id].kind != KIND_SEND:
            raise RuleRefused(f"job {job_id} is an {jobs[job_id].kind} job, not a broadcast: name the broadcast "
                              f"itself")
    for job_id in dict.fromkeys((*rule.clicked, *rule.not_clicked)):
        if not clicks_counted(jobs[job_id]):
            raise RuleRefused(f"broadcast {job_id}'s clicks were not counted (it was made without PUBLIC_URL, so its "
                              f"links were not tracked): --clicked / --not-clicked {job_id} would mean nobody / "
                              f"everyone who received it; use --received {job_id}, or set PUBLIC_URL for the next "
                              f"broadcast")


def warnings(rule: Rule) -> list[str]:
    """Return a line per tag or field no user has yet (allowed: users may get them later)."""
    lines = [f"warning: no user has tag {names.quote(tag)} yet" for tag in repo.tags_without_users(rule.tags)]
    fields = tuple(sorted({f.name for f in rule.fields}))
    lines += [f"warning: no user has field {names.quote(name)} yet" for name in repo.fields_without_users(fields)]
    return lines
