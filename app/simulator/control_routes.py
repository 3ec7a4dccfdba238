"""Server side of the /_sim/ control endpoints (JSON in, JSON out)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from app.simulator.api import JSON_TYPE, Response, encode
from app.simulator.updates import FieldError
from app.simulator.webhook import NoWebhook

if TYPE_CHECKING:
    from app.simulator.server import SimulatorServer

Route = Callable[["SimulatorServer", dict, dict], tuple[int, Any]]


def _stats(sim, data, args):
    return 200, sim.stats()


def _deliveries(sim, data, args):
    return 200, sim.deliveries(args.get("method") or None, args.get("chat_id") or None)


def _callback_answers(sim, data, args):
    return 200, sim.callback_answers()


def _get_config(sim, data, args):
    return 200, sim.config()


def _set_config(sim, data, args):
    sim.configure(**data)
    return 200, sim.config()


def _reset(sim, data, args):
    sim.reset()
    return 200, {"ok": True}


def _chats(sim, data, args):
    sim.state.set_chats(data["action"], list(data["chat_ids"]))
    return 200, {"ok": True}


def _members(sim, data, args):
    chat_id = data.get("channel_id", data.get("chat_id"))
    sim.set_member(chat_id, int(data["user_id"]), data["status"])
    return 200, {"ok": True}


def _add_message(sim, data, args):
    return 200, {"message_id": sim.add_message(**data)}


def _delete_message(sim, data, args):
    deleted = sim.delete_message_source(data["chat_id"], int(data["message_id"]))
    return 200, {"ok": True, "deleted": deleted}


def _token(sim, data, args):
    if data.get("revoked"):
        sim.revoke_token()
    else:
        sim.restore_token()
    return 200, {"ok": True, "revoked": bool(data.get("revoked"))}


def _updates(sim, data, args):
    return 200, sim.send_update(data.get("update"), **{k: v for k, v in data.items()
                                                       if k != "update"})


def _webhook(sim, data, args):
    return 200, sim.webhook()


def _get_stars(sim, data, args):
    return 200, sim.star_balance()


def _set_stars(sim, data, args):
    return 200, sim.set_stars(data.get("amount", 0), data.get("nanostar_amount", 0))


def _health(sim, data, args):
    return 200, {"ok": True, "base_url": sim.base_url}


ROUTES: dict[tuple[str, str], Route] = {
    ("GET", "/_sim/health"): _health,
    ("GET", "/_sim/stats"): _stats,
    ("GET", "/_sim/deliveries"): _deliveries,
    ("GET", "/_sim/callback_answers"): _callback_answers,
    ("GET", "/_sim/config"): _get_config,
    ("GET", "/_sim/webhook"): _webhook,
    ("GET", "/_sim/stars"): _get_stars,
    ("POST", "/_sim/stars"): _set_stars,
    ("POST", "/_sim/config"): _set_config,
    ("POST", "/_sim/reset"): _reset,
    ("POST", "/_sim/chats"): _chats,
    ("POST", "/_sim/members"): _members,
    ("POST", "/_sim/messages"): _add_message,
    ("POST", "/_sim/messages/delete"): _delete_message,
    ("POST", "/_sim/token"): _token,
    ("POST", "/_sim/updates"): _updates,
}


def handle(sim: SimulatorServer, verb: str, path: str, query: str, body: bytes) -> Response:
    """Answer one control request; client mistakes become 4xx with an "error" text."""
    route = ROUTES.get((verb, path.rstrip("/")))
    if route is None:
        return _error(404, f"no control endpoint {verb} {path}")
    try:
        data = json.loads(body) if body.strip() else {}
        if not isinstance(data, dict):
            raise ValueError("request body must be a JSON object")
        status, payload = route(sim, data, dict(parse_qsl(query)))
    except NoWebhook as exc:
        return _error(409, str(exc))
    except ConnectionError as exc:
        return _error(502, str(exc))
    except FieldError as exc:
        return _error(400, str(exc))
    except (ValueError, TypeError, KeyError) as exc:
        return _error(400, f"{type(exc).__name__}: {exc}")
    return status, JSON_TYPE, encode(payload)


def _error(status: int, text: str) -> Response:
    return status, JSON_TYPE, encode({"ok": False, "error": text})
