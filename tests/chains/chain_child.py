"""A cron pass that dies by SIGKILL inside a chain step's claim, for crash tests.

python -m tests.chains.chain_child API_BASE NOW_ISO: the step's job, its
claims and its items are written, then the process is killed before the commit.
"""
import os
import signal
import sys
from datetime import datetime

from app import create_app
from app.services.chains import due
from tests.broadcast.helpers import engine_settings
from tests.conftest import app_config


def die(original):
    """Wrap original: run it, then SIGKILL this process (no cleanup, no rollback, no commit)."""
    def wrapped(*args, **kwargs):
        original(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
    return wrapped


if __name__ == "__main__":
    api_base, now = sys.argv[1], datetime.fromisoformat(sys.argv[2])
    app = create_app(app_config(os.environ["UPK_TEST_DATABASE_URL"], api_base))
    with app.app_context():
        due.repo.populate_job = die(due.repo.populate_job)
        due.run_due(engine_settings(), now=now)
    sys.exit("not killed")
