"""Thin named wrappers over ``call()`` for the Bot API methods the app uses."""

from __future__ import annotations

import io
from typing import Any

from app.telegram.multipart import Upload

# Keyword arguments that steer call() rather than go to Telegram.
_CALL_OPTIONS = ("deadline", "retry_unknown", "broadcast", "hard_deadline", "priority", "chat_wait")


def _split(kw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Separate call() options from extra Bot API parameters."""
    options = {name: kw.pop(name) for name in _CALL_OPTIONS if name in kw}
    return kw, options


class BotMethods:
    """Mixin of convenience wrappers; the host class provides ``call()``."""

    def call(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> Any:
        """Perform one Bot API call (implemented by the client)."""
        raise NotImplementedError

    def get_me(self, **kw: Any) -> dict:
        """Return the bot's own User object."""
        extra, options = _split(kw)
        return self.call("getMe", extra, **options)

    def send_message(self, chat_id: int | str, text: str, *, parse_mode: str | None = None,
                     reply_markup: Any = None, allow_paid_broadcast: bool = False, **kw: Any) -> dict:
        """Send a text message without a link preview and return the Message."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "text": text, "parse_mode": parse_mode,
                  "reply_markup": reply_markup, "link_preview_options": {"is_disabled": True}}
        if allow_paid_broadcast:
            params["allow_paid_broadcast"] = True
        return self.call("sendMessage", {**params, **extra}, **options)

    def copy_message(self, chat_id: int | str, from_chat_id: int | str, message_id: int, *,
                     reply_markup: Any = None, allow_paid_broadcast: bool = False,
                     **kw: Any) -> dict:
        """Copy a stored message to a chat and return its MessageId."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "from_chat_id": from_chat_id,
                  "message_id": message_id, "reply_markup": reply_markup}
        if allow_paid_broadcast:
            params["allow_paid_broadcast"] = True
        return self.call("copyMessage", {**params, **extra}, **options)

    def copy_messages(self, chat_id: int | str, from_chat_id: int | str, message_ids: list[int],
                      **kw: Any) -> list[dict]:
        """Copy messages (an album stays one album) in ascending id order; return their MessageIds.

        Takes no reply_markup and no allow_paid_broadcast (Telegram offers neither);
        each id takes one slot of the bot-wide budget.
        """
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "from_chat_id": from_chat_id, "message_ids": sorted(message_ids)}
        return self.call("copyMessages", {**params, **extra}, **options)
    def send_document(self, chat_id: int | str, filename: str, stream: Any, *, caption: str | None = None,
                      content_type: str = "text/csv", **kw: Any) -> dict:
        """Upload a file from a seekable binary stream as a document; return the Message."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "caption": caption}
        return self.call("sendDocument", {**params, **extra},
                         files={"document": Upload(filename, stream, content_type)}, **options)

    def send_photo(self, chat_id: int | str, photo: bytes, *, caption: str | None = None,
                   filename: str = "chart.png", reply_markup: Any = None, **kw: Any) -> dict:
        """Upload PNG bytes as a photo; return the Message."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "caption": caption, "reply_markup": reply_markup}
        return self.call("sendPhoto", {**params, **extra},
                         files={"photo": Upload(filename, io.BytesIO(photo), "image/png")}, **options)

    def edit_message_text(self, chat_id: int | str, message_id: int, text: str, *,
                          parse_mode: str | None = None, reply_markup: Any = None,
                          **kw: Any) -> Any:
        """Replace a message's text; return the edited Message."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "message_id": message_id, "text": text,
                  "parse_mode": parse_mode, "reply_markup": reply_markup}
        return self.call("editMessageText", {**params, **extra}, **options)

    def edit_message_reply_markup(self, chat_id: int | str, message_id: int,
                                  reply_markup: Any, **kw: Any) -> Any:
        """Replace a message's inline keyboard; return the edited Message."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "message_id": message_id, "reply_markup": reply_markup}
        return self.call("editMessageReplyMarkup", {**params, **extra}, **options)

    def delete_message(self, chat_id: int | str, message_id: int, **kw: Any) -> bool:
        """Delete a message; return True."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "message_id": message_id}
        return self.call("deleteMessage", {**params, **extra}, **options)

    def answer_callback_query(self, callback_query_id: str, text: str | None = None,
                              show_alert: bool = False, **kw: Any) -> bool:
        """Acknowledge a button press, optionally with a toast or alert."""
        extra, options = _split(kw)
        params = {"callback_query_id": callback_query_id, "text": text}
        if show_alert:
            params["show_alert"] = True
        return self.call("answerCallbackQuery", {**params, **extra}, **options)

    def get_my_star_balance(self, **kw: Any) -> dict:
        """Return the bot's StarAmount ({"amount", "nanostar_amount"})."""
        extra, options = _split(kw)
        return self.call("getMyStarBalance", extra, **options)

    def get_chat_member(self, chat_id: int | str, user_id: int, **kw: Any) -> dict:
        """Return the ChatMember of ``user_id`` in ``chat_id``."""
        extra, options = _split(kw)
        params = {"chat_id": chat_id, "user_id": user_id}
        return self.call("getChatMember", {**params, **extra}, **options)

    def set_webhook(self, url: str, secret_token: str, allowed_updates: list[str],
                    max_connections: int = 40, drop_pending_updates: bool = False,
                    **kw: Any) -> bool:
        """Point Telegram's updates at ``url`` with a secret header."""
        extra, options = _split(kw)
        params = {"url": url, "secret_token": secret_token,
                  "allowed_updates": list(allowed_updates),
                  "max_connections": max_connections,
                  "drop_pending_updates": drop_pending_updates}
        return self.call("setWebhook", {**params, **extra}, **options)

    def get_webhook_info(self, **kw: Any) -> dict:
        """Return the current WebhookInfo."""
        extra, options = _split(kw)
        return self.call("getWebhookInfo", extra, **options)

    def delete_webhook(self, drop_pending_updates: bool = False, **kw: Any) -> bool:
        """Remove the webhook."""
        extra, options = _split(kw)
        return self.call("deleteWebhook", {"drop_pending_updates": drop_pending_updates, **extra},
                         **options)
