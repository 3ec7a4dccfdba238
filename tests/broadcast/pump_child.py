"""A pump in its own process, for crash tests: python -m tests.broadcast.pump_child JOB_ID API_BASE SECONDS."""
import sys

from app import create_app
from app.services.broadcast.sending.drain import pump
from tests.broadcast.helpers import engine_settings
from tests.conftest import app_config

if __name__ == "__main__":
    import os

    job_id, api_base, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    app = create_app(app_config(os.environ["UPK_TEST_DATABASE_URL"], api_base))
    with app.app_context():
        settings = engine_settings(broadcast_rate_per_second=28)
        while True:
            result = pump(job_id, seconds, settings=settings)
            print(result.stop, flush=True)
            if result.stop != "budget":
                break
