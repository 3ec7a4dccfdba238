"""Opt-out from broadcasts and where users came from (the first /start payload), with the source filter.

Revision ID: 0013
Revises: 0012
"""
from alembic import op
import sqlalchemy as sa

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users") as batch:
        # NULL: subscribed. Set by /stop (or the button under a copy), cleared only by /subscribe.
        batch.add_column(sa.Column("opted_out_at", sa.DateTime(), nullable=True))
        # The first /start payload ([A-Za-z0-9_-]{1,64}); later payloads never overwrite it.
        batch.add_column(sa.Column("start_source", sa.String(length=64), nullable=True))
        # The population query reads opted_out_at next to is_blocked: the audience index covers it.
        batch.drop_index("ix_users_audience")
        batch.create_index("ix_users_audience", ["is_blocked", "opted_out_at", "main_channel_status", "id"])
        # Per-source stats and the source filter read a range of this index.
        batch.create_index("ix_users_source", ["start_source", "started_at"])
    # Plain ADD COLUMNs: a batch with a text() default makes SQLite copy broadcast_jobs, and dropping the
    # old table with foreign keys on would delete every item of broadcast_job_items (ON DELETE CASCADE).
    # Comma-joined sources (a payload has no comma); NULL: no source filter.
    op.add_column("broadcast_jobs", sa.Column("audience_sources", sa.Text(), nullable=True))
    # Frozen when the draft is made, so every copy, retry and edit of a broadcast agrees.
    op.add_column("broadcast_jobs", sa.Column("optout_button", sa.Boolean(), server_default=sa.text('0'),
                                              nullable=False))


def downgrade():
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "optout_button")
    op.drop_column("broadcast_jobs", "audience_sources")
    with op.batch_alter_table("users") as batch:
        batch.drop_index("ix_users_source")
        batch.drop_index("ix_users_audience")
        batch.create_index("ix_users_audience", ["is_blocked", "main_channel_status", "id"])
        batch.drop_column("start_source")
        batch.drop_column("opted_out_at")
