"""The registry of inline buttons: each handler module declares its buttons next to their handlers.

A declaration names the wire prefix ("j.retry"), the action the parser
returns ("retry"), the argument kind (None, "id", "audience", "setting",
"option", "preset") and whether the button carries a draft's token. This
module imports no handler: the handler modules fill it when they are
imported, and the router imports them all (callback_data loads the router
before it reads the registry).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


class Button(NamedTuple):
    """One kind of inline button: its wire prefix, action, argument kind, token, and handler."""

    prefix: str
    action: str
    kind: str | None
    bound: bool
    handler: Callable


# prefix -> Button, in declaration order.
BUTTONS: dict[str, Button] = {}
# prefix -> (action, argument kind, carries a draft token): what callback_data parses and builds.
SPEC: dict[str, tuple[str, str | None, bool]] = {}


def button(prefix: str, action: str, *, arg: str | None = None, draft: bool = False) -> Callable:
    """Declare the decorated handler as the one for prefix; a prefix or action declared twice is an error."""
    def register(handler: Callable) -> Callable:
        if prefix in BUTTONS or any(known.action == action for known in BUTTONS.values()):
            raise ValueError(f"button {prefix!r} / {action!r} is declared twice")
        BUTTONS[prefix] = Button(prefix, action, arg, draft, handler)
        SPEC[prefix] = (action, arg, draft)
        return handler
    return register
