"""Read and change settings, validated the same way for CLI and admin menu."""
from __future__ import annotations

from app.clock import utcnow
from app.extensions import db
from app.models import Setting
from app.models.user import User
from app.repository import update_reads
from app.services import audit
from app.settings_schema import check_together, defaults, format_value, parse_value


def load_settings() -> dict:
    """Return all settings: stored overrides on top of the defaults."""
    return settings_from((row.key, row.value) for row in db.session.execute(db.select(Setting)).scalars())


def load_with_user(user_id: int | None) -> tuple[dict, User | None]:
    """Return all settings and the user's row (None if unknown) in one SELECT: a webhook update's one read."""
    pairs, user = update_reads.settings_and_user(user_id)
    return settings_from(pairs), user


def settings_from(pairs) -> dict:
    """Return the defaults overridden by stored (key, value) pairs."""
    values = defaults()
    for key, raw in pairs:
        if key in values:
            try:
                values[key] = parse_value(key, raw)
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
