"""Each handler module attaches its handlers to buttons declared in app.bot.callback_data.

The wire format (prefix, action, argument kind, token) is one static table
there, which imports no handler; @button(prefix) only names the function
that answers a declared prefix. The router imports every handler module and
then calls handled(), so a declared button without a handler stops start-up.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from app.bot.callback_data import SPEC


class Button(NamedTuple):
    """One kind of inline button: its wire prefix, action, argument kind, token, and handler."""

    prefix: str
    action: str
    kind: str | None
    bound: bool
    handler: Callable


# prefix -> Button, in the order the handler modules attach them.
BUTTONS: dict[str, Button] = {}


def button(prefix: str) -> Callable:
    """Attach the decorated handler to a declared prefix; an undeclared prefix or a second handler is an error."""
    if prefix not in SPEC:
        raise ValueError(f"button {prefix!r} is not declared in app.bot.callback_data.DECLARED")

    def attach(handler: Callable) -> Callable:
        if prefix in BUTTONS:
            raise ValueError(f"button {prefix!r} already has a handler: {BUTTONS[prefix].handler.__qualname__}")
        BUTTONS[prefix] = Button(prefix, *SPEC[prefix], handler)
        return handler
    return attach


def handled() -> dict[str, Button]:
    """Return every declared button with its handler, once the handler modules are imported; a gap is an error."""
    missing = [prefix for prefix in SPEC if prefix not in BUTTONS]
    if missing:
        raise LookupError("buttons declared without a handler (is its module imported by app.bot.router?): "
                          + ", ".join(missing))
    return BUTTONS
