"""Fixtures for the transport and shared Telegram budget tests."""
import pytest
from sqlalchemy import text

from app.db_setup import install_engine_hooks
from app.repository.budget.engine import budget_engine
from app.telegram.outbox import Outbox
from tests.telegram.fakes import FakeClient, FakeClock
from tests.telegram.tls_server import make_certificate


@pytest.fixture
def budget(database_url):
    """Yield the budget's autocommit engine on this run's database, with empty budget tables."""
    install_engine_hooks()
    engine = budget_engine(database_url)
    clear_budget(engine)
    yield engine
    clear_budget(engine)


def clear_budget(engine) -> None:
    """Forget every lane and chat."""
    with engine.connect() as conn:
        conn.execute(text("DELETE FROM telegram_budget"))
        conn.execute(text("DELETE FROM telegram_chat_pace"))


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """Self-signed certificates made for the test: one the client trusts, one it does not."""
    directory = tmp_path_factory.mktemp("tls")
    return {"trusted": make_certificate(directory, "trusted"),
            "untrusted": make_certificate(directory, "untrusted")}


@pytest.fixture
def clock():
    """A fake clock whose sleep() only moves time."""
    return FakeClock()


@pytest.fixture
def client(clock):
    """A fake Telegram client on that clock (modules with their own `client` override it)."""
    return FakeClient(clock)


@pytest.fixture
def outbox(client, clock):
    """An outbox over the fake client and clock."""
    return Outbox(client, clock=clock, sleep=clock.sleep)
