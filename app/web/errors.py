"""JSON error answers that never show internals or secrets."""
import logging

from flask import Flask, jsonify, request
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException

from app.db_errors import describe
from app.logging_setup import log_context

log = logging.getLogger(__name__)


def register(app: Flask) -> None:
    """Install handlers for HTTP errors, database outages and bugs, and the log context."""

    @app.before_request
    def set_log_context():
        # The webhook narrows this to the update id once it has parsed one.
        log_context.set(f"{request.method} {request.path}")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return jsonify(ok=False, error=exc.name), exc.code

    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError):
        # Transient by nature (server gone, lock timeout): tell the caller to retry. The log says
        # which kind (access denied, unknown database, unreachable, missing tables) and the fix.
        log.error("answering 503: %s", describe(exc))
        return jsonify(ok=False, error="database unavailable, retry later"), 503

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception):
        log.exception("unhandled error")
        return jsonify(ok=False, error="internal error"), 500
