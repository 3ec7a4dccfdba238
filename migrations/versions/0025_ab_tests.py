"""A/B tests: a test job's share, wait, state and winner, and the winner job's test.

Revision ID: 0025
Revises: 0024
"""
from alembic import op
import sqlalchemy as sa

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None

AB_COLUMNS = ("ab_of", "ab_winner", "ab_state", "ab_wait", "ab_share")


def upgrade():
    # Plain ADD COLUMNs: a batch copy of broadcast_jobs would drop the old table, and with foreign keys on,
    # ON DELETE CASCADE would take every item of broadcast_job_items with it (see 0013).
    op.add_column("broadcast_jobs", sa.Column("ab_share", sa.Integer(), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("ab_wait", sa.Integer(), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("ab_state", sa.String(8), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("ab_winner", sa.String(1), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("ab_of", sa.BigInteger(), nullable=True))
    # Cron reads the tests still waiting for a winner every minute; an admin's view finds a test's winner job.
    op.create_index("ix_broadcast_jobs_ab_state", "broadcast_jobs", ["ab_state"])
    op.create_index("ix_broadcast_jobs_ab_of", "broadcast_jobs", ["ab_of"])


def downgrade():
    op.drop_index("ix_broadcast_jobs_ab_of", table_name="broadcast_jobs")
    op.drop_index("ix_broadcast_jobs_ab_state", table_name="broadcast_jobs")
    for column in AB_COLUMNS:
        op.drop_column("broadcast_jobs", column)
