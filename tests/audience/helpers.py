"""Plain helpers for the audience tests: read tags and fields back, run a CLI command."""
from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models.user_data import UserField, UserTag


def tags_of(user_id: int) -> set[str]:
    """Return a user's tags, read fresh."""
    db.session.rollback()
    return set(db.session.execute(select(UserTag.tag).where(UserTag.user_id == user_id)).scalars())


def all_tags() -> set[tuple[int, str]]:
    """Return every (user, tag)."""
    db.session.rollback()
    return {tuple(row) for row in db.session.execute(select(UserTag.user_id, UserTag.tag))}


def all_fields() -> set[tuple[int, str, str]]:
    """Return every (user, name, value)."""
    db.session.rollback()
    return {tuple(row) for row in db.session.execute(select(UserField.user_id, UserField.name, UserField.value))}


def ok(runner, *args) -> str:
    """Run a command that must succeed; return its stdout."""
    result = runner.invoke(args=list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def refused(runner, *args) -> str:
    """Run a command that must refuse its input (exit 2) in one line; return that line."""
    result = runner.invoke(args=list(args))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]
