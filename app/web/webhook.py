"""POST /telegram/webhook: authenticate, validate, and hand the update to the bot."""
import json
import logging

from flask import Blueprint, current_app, jsonify, request

from app.bot.dispatcher import process_update
from app.logging_setup import log_context
from app.web.auth import secret_matches
from app.web.fallback import start_after

bp = Blueprint("webhook", __name__)
log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
# processed_updates.update_id is a signed BIGINT; Telegram's ids are far below this.
MAX_UPDATE_ID = 2**62


@bp.post("/telegram/webhook")
def telegram_webhook():
    """Process one update; 5xx only for transient infrastructure failures."""
    given = request.headers.get(SECRET_HEADER)
    if given is None:
        return jsonify(ok=False, error="missing secret token"), 401
    if not secret_matches(given, current_app.config["WEBHOOK_SECRET"]):
        return jsonify(ok=False, error="wrong secret token"), 403
    limit = current_app.config["WEBHOOK_MAX_BODY_BYTES"]
    if request.content_length is not None and request.content_length > limit:
        return jsonify(ok=False, error="body too large"), 413
    body = request.stream.read(limit + 1)
    if len(body) > limit:
        return jsonify(ok=False, error="body too large"), 413
    data, error = parse_update(body)
    if error:
        return jsonify(ok=False, error=error), 400
    log_context.set(f"update={data['update_id']}")
    outcome = process_update(data)
    # While cron is late, this update's answer also carries the broadcast queue forward, once sent.
    return start_after(jsonify(ok=True, outcome=outcome), current_app._get_current_object(), request.environ)


def parse_update(body: bytes) -> tuple[dict | None, str | None]:
    """Decode a JSON object with an integer update_id, or say what is wrong."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        # RecursionError: absurdly deep nesting is junk too, not a server error.
        return None, "body is not valid JSON"
    if not isinstance(data, dict):
        return None, "body is not a JSON object"
    update_id = data.get("update_id")
    if not isinstance(update_id, int) or isinstance(update_id, bool) or not 0 <= update_id <= MAX_UPDATE_ID:
        return None, "update_id missing or not an integer in 0..2**62"
    return data, None
