"""`flask --app wsgi --help` works before the environment is set; the commands then refuse in one line.

The flask CLI builds the app to list its commands. A configuration error found while it is only
listing or resolving them (at the root of the command line) is kept on the app instead of raised;
each of the app's commands (ours, and Flask-Migrate's `db` ones registered on the app) raises it
when it actually runs, as click's one-line "Error: ...". Flask's own `run`, `shell` and `routes`
build the app themselves, below the root, and so still get the error at once.
"""
from __future__ import annotations

import functools

import click
from flask import Flask, current_app

from app.config import ConfigError

KEY = "CLI_CONFIG_ERROR"


def listing_commands() -> bool:
    """Tell whether the flask CLI is building the app to list or resolve its commands (never Passenger)."""
    ctx = click.get_current_context(silent=True)
    return ctx is not None and ctx.parent is None


def defer(app: Flask, error: ConfigError) -> None:
    """Keep error for the app's commands if the CLI is only listing them; raise it otherwise."""
    if not listing_commands():
        raise error
    app.config.setdefault(KEY, error.format_message())


def _refusing(callback):
    """Wrap a command's callback to raise the app's kept configuration error before it runs."""
    @functools.wraps(callback)
    def run(*args, **kwargs):
        problem = current_app.config.get(KEY) if current_app else None
        if problem:
            raise ConfigError(problem)
        return callback(*args, **kwargs)

    run.refuses_without_config = True
    return run


def guard(command: click.Command) -> None:
    """Make command (and every command under a group) refuse to run on an app with a kept error."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            guard(sub)
    elif command.callback is not None and not getattr(command.callback, "refuses_without_config", False):
        command.callback = _refusing(command.callback)
