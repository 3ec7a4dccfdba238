"""Helpers that drive the admin wizard through the webhook like Telegram would."""
from __future__ import annotations

from app.extensions import db
from app.models import BroadcastJob
from app.simulator.updates import callback_update, message_update
from app.texts import t
from tests.conftest import ADMIN_ID
from tests.factories import admin_state, post_update


def send(client, sim, text=None, user_id=ADMIN_ID, **kwargs) -> dict:
    """Deliver a private message from user_id; return the update."""
    update = message_update(user_id, text, **kwargs)
    response = post_update(client, update, sim=sim)
    assert response.status_code == 200, response.get_data(as_text=True)
    return update


def tap(client, sim, data: str, user_id=ADMIN_ID, message_id: int | None = None, **kwargs) -> dict:
    """Deliver a button press under the bot's last message to user_id; return the JSON answer."""
    if message_id is None:
        sent = sim.deliveries(chat_id=user_id)
        message_id = sent[-1]["message_id"] if sent else 1
    update = callback_update(user_id, data, user_id, message_id, **kwargs)
    response = post_update(client, update, sim=sim)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def last_answer(sim) -> dict:
    """Return the last answerCallbackQuery the bot made."""
    return sim.callback_answers()[-1]


def step_of(user_id=ADMIN_ID) -> str | None:
    """Return the admin's wizard step, or None."""
    state = admin_state(user_id)
    return state.step if state else None


def all_jobs() -> list[BroadcastJob]:
    """Return every job, freshly read."""
    db.session.expire_all()
    jobs = list(db.session.execute(db.select(BroadcastJob).order_by(BroadcastJob.id)).scalars())
    db.session.commit()
    return jobs


def texts_to(sim, chat_id=ADMIN_ID) -> list[str]:
    """Return the texts of sendMessage deliveries to a chat."""
    return [d["text"] for d in sim.deliveries("sendMessage", chat_id)]


def buttons(delivery: dict) -> list[str]:
    """Return the callback data of every inline button of a delivered message."""
    rows = (delivery.get("reply_markup") or {}).get("inline_keyboard", [])
    return [b["callback_data"] for row in rows for b in row if "callback_data" in b]


def offered(sim, action: str, user_id=ADMIN_ID) -> dict:
    """Return the newest message to user_id with a button for action ("w.confirm", "w.aud:all", ...)."""
    for delivery in reversed(sim.deliveries(chat_id=user_id)):
        if any(data == action or data.startswith(action + ":") for data in buttons(delivery)):
            return delivery
    raise AssertionError(f"the bot never offered {action!r}")


def press(client, sim, action: str, under: dict | None = None, user_id=ADMIN_ID, **kwargs) -> dict:
    """Press the button for action under a message (the newest offering it by default), as a human would."""
    under = under or offered(sim, action, user_id)
    [data] = [d for d in buttons(under) if d == action or d.startswith(action + ":")]
    return tap(client, sim, data, user_id=user_id, message_id=under["message_id"], **kwargs)


def screen(count: int, audience: str = "all", lang: str = "fa", *, duration: str = "≈ ۱ ثانیه", filters: str = "",
           queue: str = "", options: str | None = None, paid: str = "", ask: bool = True, album: int = 0) -> str:
    """Return the pre-send screen's text as the admin should read it (album: how many parts each user gets)."""
    text = t("wiz_preview", lang, audience=t(f"aud_name_{audience}", lang), filters=filters, count=count,
             duration=duration, queue=queue, options=options if options is not None else t("opt_none", lang))
    parts = t("wiz_album_parts_line", lang).format(n=album) if album else ""
    return text + parts + paid + (t("wiz_ask_send", lang) if ask else "")


def post(sim, kind, **kwargs) -> None:
    """Have the simulator build an update and POST it to the served webhook, as Telegram does."""
    result = sim.send_update(kind=kind, **kwargs)
    assert result["status"] == 200, result["body"]
    assert result["body"]["outcome"] == "handled"
