"""Pin / unpin action jobs (kinds only, no schema) and auto-expiry: expire_after and expire_at on broadcast_jobs.

Revision ID: 0022
Revises: 0021
"""
from alembic import op
import sqlalchemy as sa

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMNs: a batch copy of broadcast_jobs would cascade-delete every item on SQLite.
    op.add_column("broadcast_jobs", sa.Column("expire_after", sa.Integer(), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("expire_at", sa.DateTime(), nullable=True))
    # Cron's "which expiries are due" is a range of this index (almost every row is NULL).
    op.create_index("ix_broadcast_jobs_expire_at", "broadcast_jobs", ["expire_at"])


def downgrade():
    # Pin and unpin jobs become plain rows of an unknown kind; they are ended action jobs by then.
    op.drop_index("ix_broadcast_jobs_expire_at", table_name="broadcast_jobs")
    op.drop_column("broadcast_jobs", "expire_at")
    op.drop_column("broadcast_jobs", "expire_after")
