"""A cron call that dies by SIGKILL inside a recurring release, for crash tests.

python -m tests.broadcast.recurring_child API_BASE NOW_ISO POINT, POINT one of:
  in_transaction  after the advance and the job's insert, before their commit
  after_commit    after the commit, before the job's recipients are added
"""
import os
import signal
import sys
from datetime import datetime

from app import create_app
from app.services.broadcast.schedule import recurring
from tests.broadcast.helpers import engine_settings
from tests.conftest import app_config


def die(original):
    """Wrap original: run it, then SIGKILL this process (no cleanup, no rollback, no commit)."""
    def wrapped(*args, **kwargs):
        original(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
    return wrapped


if __name__ == "__main__":
    api_base, now, point = sys.argv[1], datetime.fromisoformat(sys.argv[2]), sys.argv[3]
    app = create_app(app_config(os.environ["UPK_TEST_DATABASE_URL"], api_base))
    with app.app_context():
        if point == "in_transaction":
            recurring.repo.record = die(recurring.repo.record)
        else:
            recurring.fill = die(lambda *args: None)
        recurring.release_due(engine_settings(), now=now)
    sys.exit("not killed")
