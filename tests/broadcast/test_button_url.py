"""Job creation refuses a button URL Telegram would refuse, whoever calls it (the wizard and CLI check first)."""
import pytest

from app.models import BroadcastJob
from app.services.broadcast.jobs import creation as jobs_creation
from tests.broadcast.helpers import create_users, engine_settings
from tests.cli.test_broadcast_cmd import count


@pytest.mark.parametrize("url", ["https://intranet", "https://a/b", "tg://resolve?domain=x"])
def test_create_job_refuses_a_url_telegram_would_refuse(app, url):
    create_users(1)
    with pytest.raises(ValueError, match="button URL"):
        jobs_creation.create_job(audience="all", created_by=1, settings=engine_settings(), button_text="Go",
                                 button_url=url, content={"type": "text", "text": "hello"})
    assert count(BroadcastJob) == 0
