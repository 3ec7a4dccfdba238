"""Audience filters (language, active/joined within N days) and send options (silent, protect) per job.

Revision ID: 0005
Revises: 0004
"""
from alembic import op
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMNs: a batch with a text() default makes SQLite copy broadcast_jobs, and dropping the
    # old table with foreign keys on would delete every item of broadcast_job_items (ON DELETE CASCADE).
    op.add_column("broadcast_jobs", sa.Column("audience_langs", sa.String(length=16), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("audience_active_days", sa.Integer(), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("audience_joined_days", sa.Integer(), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("silent", sa.Boolean(), server_default=sa.text('0'), nullable=False))
    op.add_column("broadcast_jobs", sa.Column("protect", sa.Boolean(), server_default=sa.text('0'), nullable=False))
    op.create_index("ix_users_last_seen", "users", ["is_blocked", "last_seen_at"])


def downgrade():
    op.drop_index("ix_users_last_seen", table_name="users")
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "protect")
    op.drop_column("broadcast_jobs", "silent")
    op.drop_column("broadcast_jobs", "audience_joined_days")
    op.drop_column("broadcast_jobs", "audience_active_days")
    op.drop_column("broadcast_jobs", "audience_langs")
