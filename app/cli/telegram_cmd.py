"""`flask telegram set-webhook | webhook-info | delete-webhook`."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

import click
from flask import current_app
from flask.cli import AppGroup
from sqlalchemy.exc import SQLAlchemyError

from app.cli.common import CommandError, echo_json
from app.extensions import db
from app.services.settings import load_settings
from app.services.telegram_factory import get_client
from app.settings_schema import defaults
from app.telegram.errors import TelegramError

# Every update type a handler routes; membership updates must be asked for explicitly.
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member", "chat_member"]
# Telegram accepts only these characters in secret_token.
_SECRET_CHARS = re.compile(r"^[A-Za-z0-9_-]{1,256}$")

telegram_group = AppGroup("telegram", help="Manage the bot's webhook at Telegram.")


def _client():
    """Return the app's Telegram client, refusing when no token is configured."""
    if not current_app.config.get("TELEGRAM_BOT_TOKEN"):
        raise CommandError("TELEGRAM_BOT_TOKEN is not set")
    try:
        settings = load_settings()
    except SQLAlchemyError:
        # Only the timeouts come from here: webhook commands work before `db upgrade` or with the database down.
        db.session.rollback()
        settings = defaults()
    return get_client(settings)


def _call(method: str, fn, *args, **kwargs):
    """Run one Bot API call, turning any failure into one line without the token."""
    try:
        return fn(*args, **kwargs)
    except TelegramError as exc:
        raise CommandError(f"{method} failed: {type(exc).__name__}: {exc.description}") from None


def check_webhook_url(url: str, allow_http: bool) -> str:
    """Return url if Telegram can deliver to it, else raise a usage error."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise click.BadParameter(f"{url!r} is not an absolute URL like https://example.com/telegram/webhook")
    if parts.scheme == "http" and not allow_http:
        raise click.BadParameter("Telegram only delivers to https:// URLs (use --allow-http for a loopback demo)")
    return url


@telegram_group.command("set-webhook")
@click.argument("url")
@click.option("--allow-http", is_flag=True, help="Accept an http:// URL (loopback tests and the demo).")
@click.option("--drop-pending", is_flag=True, help="Drop updates Telegram has queued for the bot.")
@click.option("--max-connections", type=click.IntRange(1, 100), default=40, show_default=True)
def set_webhook(url: str, allow_http: bool, drop_pending: bool, max_connections: int) -> None:
    """Point Telegram at URL with our secret header and the update types we handle."""
    try:
        check_webhook_url(url, allow_http)
    except click.BadParameter as exc:
        exc.param_hint = "URL"
        raise
    secret = current_app.config.get("WEBHOOK_SECRET") or ""
    if not _SECRET_CHARS.match(secret):
        raise CommandError("WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
    client = _client()
    result = _call("setWebhook", client.set_webhook, url, secret_token=secret,
                   allowed_updates=ALLOWED_UPDATES, max_connections=max_connections,
                   drop_pending_updates=drop_pending)
    echo_json({"ok": True, "result": result, "url": url, "allowed_updates": ALLOWED_UPDATES})


@telegram_group.command("webhook-info")
def webhook_info() -> None:
    """Print Telegram's WebhookInfo as JSON."""
    client = _client()
    echo_json(_call("getWebhookInfo", client.get_webhook_info))


@telegram_group.command("delete-webhook")
@click.option("--drop-pending", is_flag=True, help="Also drop updates Telegram has queued for the bot.")
def delete_webhook(drop_pending: bool) -> None:
    """Remove the webhook."""
    client = _client()
    result = _call("deleteWebhook", client.delete_webhook, drop_pending_updates=drop_pending)
    echo_json({"ok": True, "result": result})
