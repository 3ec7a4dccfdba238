"""WSGI entry point: `flask --app wsgi ...` and WSGI servers use `app`."""
from app import create_app

app = create_app()
