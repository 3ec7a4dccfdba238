"""Flask CLI command groups."""
from flask import Flask


def register(app: Flask) -> None:
    """Attach every command group to the app's CLI."""
    # Imported for their commands: ab, ab-pick, retry, export, unsend, edit, pin, expire and report join the broadcast
    # group; tags, fields, show and import the users group.
    from app.cli import (  # noqa: F401
        ab_cmd,
        action_cmd,
        after_send_cmd,
        import_cmd,
        ledger_cmd,
        report_cmd,
        source_tags_cmd,
        tags_cmd,
    )
    from app.cli.broadcast_cmd import broadcast_group
    from app.cli.chains_cmd import chains_group
    from app.cli.doctor_cmd import doctor_command
    from app.cli.guard import guard
    from app.cli.recurring_cmd import recurring_group
    from app.cli.segments_cmd import segments_group
    from app.cli.settings_cmd import settings_group
    from app.cli.stats_cmd import audit_group, stats_command
    from app.cli.telegram_cmd import telegram_group
    from app.cli.updates_cmd import updates_group
    from app.cli.users_cmd import users_group

    for group in (settings_group, telegram_group, broadcast_group, updates_group, users_group, audit_group,
                  stats_command, recurring_group, segments_group, chains_group, doctor_command):
        app.cli.add_command(group)
    # Ours and Flask-Migrate's `db` refuse to run when the environment is incomplete (app/cli/guard.py).
    guard(app.cli)
