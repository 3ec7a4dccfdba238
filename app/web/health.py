"""GET /healthz: the app and its database answer."""
import logging

from flask import Blueprint, jsonify
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.extensions import db

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)


@bp.get("/healthz")
def healthz():
    """Answer 200 when the database answers a trivial query, 503 otherwise."""
    try:
        db.session.execute(text("SELECT 1"))
        db.session.commit()
    except SQLAlchemyError as exc:
        db.session.rollback()
        log.warning("health check failed: %s", type(exc).__name__)
        return jsonify(ok=False, database="unavailable"), 503
    return jsonify(ok=True, database="ok")
