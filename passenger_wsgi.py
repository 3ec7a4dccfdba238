"""cPanel "Setup Python App" (Phusion Passenger) entry point."""
import os
import sys

# Passenger starts in the app root but does not put it on sys.path.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from wsgi import app as application  # noqa: E402,F401
