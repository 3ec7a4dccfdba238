"""Update Pack bot: the Flask application factory."""
from __future__ import annotations

import os

import click
from flask import Flask

from app.cli.guard import defer
from app.config import ConfigError, database_password, engine_options, load_config, missing_secrets


def create_app(config: dict | None = None) -> Flask:
    """Create the app: config, extensions, blueprints, error handlers, CLI."""
    app = Flask(__name__, instance_relative_config=True)
    os.makedirs(app.instance_path, exist_ok=True)
    try:
        app.config.update(load_config(app.instance_path))
    except ConfigError as error:
        defer(app, error)  # `flask --help` still lists the commands; they refuse to run
        app.config.update(load_config(app.instance_path, env={}))
    if config:
        app.config.update(config)
        if "SQLALCHEMY_DATABASE_URI" in config and "SQLALCHEMY_ENGINE_OPTIONS" not in config:
            app.config["SQLALCHEMY_ENGINE_OPTIONS"] = engine_options(config["SQLALCHEMY_DATABASE_URI"])
    check_secrets(app)
    configure_logger(app)
    register_extensions(app)
    register_blueprints(app)
    register_errorhandlers(app)
    register_commands(app)
    return app


def check_secrets(app: Flask) -> None:
    """Refuse to start in production without the secrets, naming what is missing."""
    missing = missing_secrets(app.config)
    if missing and not (app.testing or app.debug or app.config.get("ALLOW_MISSING_SECRETS")):
        defer(app, ConfigError("missing required environment variables: " + ", ".join(missing)
                               + " (set them in cPanel > Setup Python App > Environment variables for the "
                               "web app; a terminal reads them from ~/.update_pack.env: "
                               "set -a; . ~/.update_pack.env; set +a)"))


def configure_logger(app: Flask) -> None:
    """Log to stderr with secrets redacted (the database password among them)."""
    from app.logging_setup import configure_logging, register_secrets

    register_secrets(app.config["TELEGRAM_BOT_TOKEN"], app.config["WEBHOOK_SECRET"], app.config["PUMP_TOKEN"],
                     database_password(str(app.config["SQLALCHEMY_DATABASE_URI"])))
    configure_logging(app.config.get("LOG_LEVEL", "INFO"))


def register_extensions(app: Flask) -> None:
    """Bind the database and migrations (no connection is opened here)."""
    from app import models  # noqa: F401  (register every table)
    from app.db_setup import install_engine_hooks
    from app.extensions import db, migrate

    install_engine_hooks()
    db.init_app(app)
    migrate.init_app(app, db, directory=os.path.join(os.path.dirname(app.root_path), "migrations"),
                     render_as_batch=True, compare_type=True)


def register_blueprints(app: Flask) -> None:
    """Mount the webhook, health, internal and click-redirect endpoints."""
    from app.web.clicks import bp as clicks_bp
    from app.web.health import bp as health_bp
    from app.web.internal import bp as internal_bp
    from app.web.webhook import bp as webhook_bp

    app.register_blueprint(webhook_bp)
    app.register_blueprint(health_bp)
    app.register_blueprint(internal_bp)
    app.register_blueprint(clicks_bp)


def register_errorhandlers(app: Flask) -> None:
    """Answer errors as short JSON with no internals."""
    from app.web.errors import register

    register(app)


def register_commands(app: Flask) -> None:
    """Add the settings, telegram, broadcast and admin command groups."""
    from app.cli import register
    from app.cli.errors import install_excepthook

    register(app)
    if click.get_current_context(silent=True) is not None:
        # Loaded by the flask CLI (never by Passenger or a test's create_app).
        install_excepthook()
