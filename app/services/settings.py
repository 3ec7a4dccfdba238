"""Read and change settings, validated the same way for CLI and admin menu."""
from __future__ import annotations

from app.clock import utcnow
from app.extensions import db
from app.models import Setting
from app.services import audit
from app.settings_schema import check_together, defaults, format_value, parse_value


def load_settings() -> dict:
    """Return all settings: stored overrides on top of the defaults."""
    values = defaults()
    for row in db.session.execute(db.select(Setting)).scalars():
        if row.key in values:
            try:
                values[row.key] = parse_value(row.key, row.value)
            except ValueError:
                pass  # a value made invalid by a newer range falls back to the default
    return values


def set_setting(key: str, raw, actor: str | None = None) -> int | float | bool:
    """Validate and store a setting (audited as actor's change); raise SettingError and store nothing if invalid."""
    value = parse_value(key, raw)
    check_together({**load_settings(), key: value})
    row = db.session.get(Setting, key)
    if row is None:
        row = Setting(key=key)
        db.session.add(row)
    old = row.value if row.value is not None else format_value(defaults()[key])
    row.value = format_value(value)
    row.updated_at = utcnow()
    audit.record(actor, audit.SETTING_CHANGED, None, f"{key}: {old} -> {row.value}")
    db.session.commit()
    return value
