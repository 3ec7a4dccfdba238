"""wsgi:app plus one route saying which libraries this worker has imported (the picture tests ask for matplotlib)."""
from __future__ import annotations

import sys

from flask import jsonify, request

from wsgi import app


@app.get("/_test/loaded")
def loaded():
    """Answer {name: imported?} for each ?name= asked."""
    return jsonify({name: name in sys.modules for name in request.args.getlist("name")})
