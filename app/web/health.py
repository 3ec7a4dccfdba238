"""GET /healthz: the app answers, its database answers, the schema is at the head migration; and cron's last run.

`/healthz?cron=1` (for uptime monitors) also answers 503 while cron is late.
"""
from __future__ import annotations

import functools
import logging

from alembic.script import ScriptDirectory
from flask import Blueprint, current_app, jsonify, request
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.db_errors import FIXES, MISSING_TABLES, UPGRADE, classify, describe
from app.extensions import db
from app.services.broadcast.schedule.cron_watch import cron_state
from app.services.settings import load_settings

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)
NEWER_FIX = "deploy the code that matches the database, or restore the backup taken before the upgrade"


@functools.cache
def migration_revisions(directory: str) -> tuple[frozenset[str], frozenset[str]]:
    """Return (heads, every revision) of the migration scripts; they never change in a running process."""
    script = ScriptDirectory(directory)
    return frozenset(script.get_heads()), frozenset(rev.revision for rev in script.walk_revisions())


def schema_revisions() -> frozenset[str]:
    """Return the revisions the database says it is at (empty when it has no schema)."""
    try:
        rows = db.session.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        db.session.commit()
    except SQLAlchemyError as exc:
        db.session.rollback()
        if classify(exc) == MISSING_TABLES:
            return frozenset()
        raise
    return frozenset(rows)


def _ids(revisions: frozenset[str]) -> str | None:
    """Render revision ids for the answer ("0003"; several heads comma-separated)."""
    return ",".join(sorted(revisions)) or None


@bp.get("/healthz")
def healthz():
    """Answer 200 when the database answers at the head migration, 503 saying what to fix otherwise."""
    heads, known = migration_revisions(current_app.extensions["migrate"].directory)
    try:
        current = schema_revisions()
    except SQLAlchemyError as exc:
        log.warning("health check failed: %s", describe(exc))
        kind = classify(exc)
        return jsonify(ok=False, database="unavailable", reason=kind, fix=FIXES[kind]), 503
    if current == heads:
        return _with_cron(_ids(current))
    if not current:
        state, fix = "no schema", UPGRADE
    elif current - known:
        state, fix = "schema newer than the code", NEWER_FIX
    else:
        state, fix = "schema out of date", UPGRADE
    log.warning("health check failed: %s (database at %s, code at %s); %s", state, _ids(current), _ids(heads), fix)
    return jsonify(ok=False, database=state, schema=_ids(current), head=_ids(heads), fix=fix), 503


def _with_cron(schema: str | None):
    """Answer 200 with cron's last run; the strict form (?cron=1) answers 503 while cron is late."""
    cron = cron_state(load_settings()).to_dict()
    if cron["late"] and request.args.get("cron") == "1":
        log.warning("health check (cron): cron is late, last run %s", cron["last_run"] or "never")
        return jsonify(ok=False, database="ok", schema=schema, cron=cron,
                       error="cron is late: /internal/pump has not been called while broadcasts wait"), 503
    return jsonify(ok=True, database="ok", schema=schema, cron=cron)
