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
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("audience_langs", sa.String(length=16), nullable=True))
        batch.add_column(sa.Column("audience_active_days", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("audience_joined_days", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("silent", sa.Boolean(), server_default=sa.text('0'), nullable=False))
        batch.add_column(sa.Column("protect", sa.Boolean(), server_default=sa.text('0'), nullable=False))
    op.create_index("ix_users_last_seen", "users", ["is_blocked", "last_seen_at"])


def downgrade():
    op.drop_index("ix_users_last_seen", table_name="users")
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.drop_column("protect")
        batch.drop_column("silent")
        batch.drop_column("audience_joined_days")
        batch.drop_column("audience_active_days")
        batch.drop_column("audience_langs")
