"""GET|POST /internal/pump: the cron job's entry into the broadcast engine."""
from __future__ import annotations

import logging
import re
import time

from flask import Blueprint, current_app, jsonify, request

from app.logging_setup import log_context
from app.models.pump_run import CRON
from app.services import housekeeping
from app.services.broadcast.schedule.cron_watch import run_recorded
from app.services.broadcast.sending import drain
from app.services.settings import load_settings
from app.web.auth import secret_matches

bp = Blueprint("internal", __name__)
log = logging.getLogger(__name__)
HEADER_ONLY = ("unauthorized: send the token only in the header 'Authorization: Bearer <PUMP_TOKEN>' "
               "(cron/pump.sh does); a token in the URL lands in the web server's access log, "
               "so if that was the real token, change PUMP_TOKEN")


def _bearer_token() -> str | None:
    """Return the token of an `Authorization: Bearer` header, or None."""
    scheme, _, value = (request.headers.get("Authorization") or "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _token_outside_header() -> bool:
    """Tell whether the caller put a token in the query string or a form field (refused, whatever it is)."""
    return "token" in request.args or (request.method == "POST" and "token" in request.form)


def parse_seconds(raw: str | None, limit: int) -> int:
    """Return the pump budget: limit, or a smaller whole number of seconds the caller asked for."""
    if raw is None:
        return limit
    if not re.fullmatch(r"[0-9]{1,6}", raw) or not 1 <= int(raw) <= limit:
        raise ValueError(f"seconds must be a whole number from 1 to {limit} (cron_pump_seconds)")
    return int(raw)


@bp.route("/internal/pump", methods=["GET", "POST"])
def pump():
    """Run pump_all within the budget and answer per-job counters as JSON."""
    # Checked before anything else, so a caller without the token learns nothing. A token in
    # the URL is refused before it is compared, so the answer never tells whether it was right.
    if _token_outside_header():
        return jsonify(ok=False, error=HEADER_ONLY), 401, {"WWW-Authenticate": "Bearer"}
    if not secret_matches(_bearer_token(), current_app.config.get("PUMP_TOKEN") or ""):
        return jsonify(ok=False, error="unauthorized"), 401, {"WWW-Authenticate": "Bearer"}
    settings = load_settings()
    try:
        seconds = parse_seconds(request.values.get("seconds"), settings["cron_pump_seconds"])
    except ValueError as exc:
        return jsonify(ok=False, error=str(exc)), 400
    context = log_context.set(request.path)  # the path only: query strings never reach a log line
    try:
        started = time.monotonic()
        results = run_recorded(CRON, lambda: drain.pump_all(seconds, settings=settings))
        housekept = housekeeping.run(settings)
    finally:
        log_context.reset(context)
    return jsonify(ok=True, jobs=[r.to_dict() for r in results], seconds=round(time.monotonic() - started, 3),
                   **housekept)
