"""No Telegram call is made while the caller's database transaction is open (SQLite would hold its write lock)."""
import pytest

from app.extensions import db
from app.telegram.client import TelegramClient
from tests.bot.wizard import send, tap
from tests.conftest import ADMIN_ID, MAIN_CHANNEL_ID
from tests.factories import create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")


@pytest.fixture
def calls_in_transaction(monkeypatch):
    """Record (method, transaction open?) for every Bot API call, the engine's included."""
    seen = []
    real_call = TelegramClient.call

    def watched(self, method, params=None, **options):
        try:
            open_tx = db.session().in_transaction()
        except RuntimeError:  # a worker thread without an app context has no session of its own
            open_tx = None
        seen.append((method, open_tx))
        return real_call(self, method, params, **options)

    monkeypatch.setattr(TelegramClient, "call", watched)
    return seen


def test_start_and_wizard_never_call_telegram_inside_a_transaction(client, simulator, calls_in_transaction):
    create_users([9501, 9502])
    simulator.set_member(MAIN_CHANNEL_ID, ADMIN_ID, "member")
    send(client, simulator, "/start")
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    tap(client, simulator, "w.no_button")
    tap(client, simulator, "w.aud:all")
    tap(client, simulator, "w.confirm")
    tap(client, simulator, "w.confirm")
    ours = list(calls_in_transaction)
    assert {"getChatMember", "sendMessage", "copyMessage", "answerCallbackQuery"} <= {m for m, _ in ours}
    assert [call for call in ours if call[1]] == []


def test_job_controls_never_call_telegram_inside_a_transaction(client, simulator, calls_in_transaction):
    from app.services.broadcast import jobs
    from app.services.settings import load_settings, set_setting

    create_users([9601, 9602])
    set_setting("webhook_pump_calls", "0")
    source = simulator.add_message(ADMIN_ID, text="news")
    job = jobs.create_job(audience="all", created_by=ADMIN_ID, settings=load_settings(), progress_chat_id=ADMIN_ID,
                          content={"type": "copy", "from_chat_id": ADMIN_ID, "message_id": source})
    for action in ("continue", "pause", "resume", "cancel_job", "cancel_job", "continue"):
        tap(client, simulator, f"w.{action}:{job.id}")
    ours = list(calls_in_transaction)
    assert {"answerCallbackQuery", "editMessageText"} <= {m for m, _ in ours}
    assert [call for call in ours if call[1]] == []
