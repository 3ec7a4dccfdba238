"""Warn at `broadcast create` that a broadcast's link buttons go out untracked: PUBLIC_URL is not set here."""
from __future__ import annotations

import click
from flask import current_app

from app.models.broadcast import KIND_SEND, BroadcastJob
from app.services.broadcast.reporting import clicks


def warn(job: BroadcastJob) -> None:
    """Say on stderr, in one line, that job's clicks will not be counted when it has link buttons and no PUBLIC_URL."""
    if not current_app.config.get("PUBLIC_URL") and job.kind == KIND_SEND and clicks.has_link(job):
        click.echo(f"warning: PUBLIC_URL is not set: broadcast {job.id}'s link buttons go out untracked and its "
                   "clicks are not counted (set PUBLIC_URL in ~/.update_pack.env and in Setup Python App; "
                   "docs/DEPLOY_CPANEL.md, step 3)", err=True)
