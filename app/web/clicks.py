"""GET /r/<token>: a tracked button's click, counted once per recipient, then a 302 to the job's own URL.

Flask answers HEAD on a GET route too: a HEAD gets the same redirect and counts nothing (link
previewers and prefetchers send HEAD; only a GET is someone following the link).
"""
from __future__ import annotations

from flask import Blueprint, abort, redirect, request

from app.extensions import db
from app.services.broadcast.reporting import clicks

bp = Blueprint("clicks", __name__)


@bp.get(clicks.PATH + "<token>")
def follow(token: str):
    """Redirect to the job's button URL; 404 for any token that is not a copy's (the query string is ignored)."""
    url = clicks.follow(token, count=request.method == "GET")
    if url is None:
        db.session.rollback()
        abort(404)
    db.session.commit()
    # No caching: each click must reach us to be counted.
    response = redirect(url, 302)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
