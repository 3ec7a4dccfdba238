"""JSON error answers that never show internals or secrets."""
import logging

from flask import Flask, jsonify
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)


def register(app: Flask) -> None:
    """Install handlers for HTTP errors, database outages and bugs."""

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return jsonify(ok=False, error=exc.name), exc.code

    @app.errorhandler(DBAPIError)
    def database_error(exc: DBAPIError):
        # Transient by nature (server gone, lock timeout): tell the caller to retry.
        log.error("database unavailable: %s", type(exc.orig).__name__ if exc.orig else type(exc).__name__)
        return jsonify(ok=False, error="database unavailable, retry later"), 503

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception):
        log.exception("unhandled error")
        return jsonify(ok=False, error="internal error"), 500
