"""No Telegram call is made while a database transaction is open, in any thread (SQLite would hold its write lock).

Every Bot API call is checked in the thread that makes it: the request's
thread, the outbox worker and the engine's send workers. A broadcast send must
also start only once its item is committed as 'sending' (else the dispatching
transaction would still be open across the request, and a crash would resend).
"""
import threading

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.pool import NullPool

from app.config import ONE_CONNECTION, engine_options
from app.extensions import db
from app.telegram.client import TelegramClient
from tests.bot.wizard import press, send, tap
from tests.conftest import ADMIN_ID, MAIN_CHANNEL_ID
from tests.factories import create_users

pytestmark = pytest.mark.usefixtures("fast_telegram")
RECIPIENTS = [9501, 9502, 9503]


class Call:
    """One Bot API call and what was open in its thread when it started."""

    def __init__(self, method: str, thread: str, session_tx: bool, held: bool, broadcast: bool, item: str | None):
        self.method, self.thread, self.session_tx, self.held = method, thread, session_tx, held
        self.broadcast, self.item = broadcast, item

    @property
    def inside_transaction(self) -> bool:
        """True when the calling thread held a connection or an open session transaction."""
        return self.session_tx or self.held

    def __repr__(self) -> str:
        return (f"Call({self.method} in {self.thread}: session_tx={self.session_tx} held={self.held} "
                f"broadcast={self.broadcast} item={self.item})")


@pytest.fixture
def calls(app, database_url, monkeypatch):
    """Record every Bot API call with the transactions open in its thread, the engine's workers included."""
    held: dict[int, int] = {}  # pool connection record -> the thread that checked it out
    lock = threading.Lock()

    def checkout(dbapi_connection, record, proxy):
        with lock:
            held[id(record)] = threading.get_ident()

    def checkin(dbapi_connection, record):
        with lock:
            held.pop(id(record), None)

    event.listen(db.engine, "checkout", checkout)
    event.listen(db.engine, "checkin", checkin)
    # Reads what is committed, on connections of its own (not in db.engine's pool).
    options = {k: v for k, v in engine_options(database_url).items() if k not in ONE_CONNECTION}  # NullPool: no size
    observer = create_engine(database_url, **options, poolclass=NullPool)
    seen: list[Call] = []
    real_call = TelegramClient.call

    def committed_item_status(chat_id) -> str | None:
        with observer.connect() as conn:
            # One job runs at a time: the item being sent is this user's item of the running job.
            return conn.execute(text("SELECT i.status FROM broadcast_job_items i JOIN broadcast_jobs j "
                                     "ON j.id = i.job_id WHERE i.user_id = :u AND j.status = 'running'"),
                                {"u": chat_id}).scalar()

    def watched(self, method, params=None, **options):
        me = threading.get_ident()
        with lock:
            holds = me in held.values()
        try:
            session_tx = db.session().in_transaction()
        except RuntimeError:  # a worker thread has no app context, so no session: its connections still count
            session_tx = False
        broadcast = bool(options.get("broadcast"))
        item = committed_item_status((params or {}).get("chat_id")) if broadcast else None
        seen.append(Call(method, threading.current_thread().name, session_tx, holds, broadcast, item))
        return real_call(self, method, params, **options)

    monkeypatch.setattr(TelegramClient, "call", watched)
    yield seen
    event.remove(db.engine, "checkout", checkout)
    event.remove(db.engine, "checkin", checkin)
    observer.dispose()


def assert_no_call_inside_a_transaction(seen: list[Call]) -> None:
    """Check every call, and that the engine's send workers were among the callers."""
    assert [c for c in seen if c.inside_transaction] == []
    sends = [c for c in seen if c.broadcast]
    main = threading.main_thread().name
    assert sends and all(c.thread != main for c in sends), "the engine's worker threads were looked at"
    assert {c.item for c in sends} == {"sending"}, "a send started before its item was committed as in flight"


def test_start_and_wizard_never_call_telegram_inside_a_transaction(client, simulator, calls):
    create_users(RECIPIENTS)
    simulator.set_member(MAIN_CHANNEL_ID, ADMIN_ID, "member")
    send(client, simulator, "/start")
    send(client, simulator, "/broadcast")
    send(client, simulator, "hello")
    press(client, simulator, "w.no_button")
    press(client, simulator, "w.aud:all")
    press(client, simulator, "w.confirm")
    press(client, simulator, "w.confirm")
    assert {"getChatMember", "sendMessage", "copyMessage", "answerCallbackQuery"} <= {c.method for c in calls}
    assert_no_call_inside_a_transaction(calls)
    assert {d["chat_id"] for d in simulator.deliveries(method="copyMessage")} >= set(RECIPIENTS)


def test_job_controls_never_call_telegram_inside_a_transaction(client, simulator, calls):
    from app.services.broadcast.jobs import creation
    from app.services.settings import load_settings, set_setting

    create_users(RECIPIENTS)
    set_setting("webhook_pump_calls", "0")
    source = simulator.add_message(ADMIN_ID, text="news")
    first, second = (creation.create_job(audience="all", created_by=ADMIN_ID, settings=load_settings(),
                                         progress_chat_id=ADMIN_ID,
                                         content={"type": "copy", "from_chat_id": ADMIN_ID, "message_id": source}).id
                     for _ in range(2))
    # No pump yet: the jobs stay open and their progress messages are edited.
    for data in (f"w.continue:{first}", f"w.pause:{first}", f"w.resume:{first}",
                 f"w.cancel_job:{second}", f"w.cancel_job:{second}"):
        tap(client, simulator, data)
    set_setting("webhook_pump_calls", "1")
    for data in (f"w.continue:{first}", f"w.continue:{first}"):  # the engine sends and finishes; then it is over
        tap(client, simulator, data)
    assert {"answerCallbackQuery", "editMessageText"} <= {c.method for c in calls}
    assert_no_call_inside_a_transaction(calls)
