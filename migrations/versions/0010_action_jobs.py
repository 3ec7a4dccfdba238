"""Action jobs: unsend or edit a finished broadcast through the same engine (kind, source_job_id, two counters).

Revision ID: 0010
Revises: 0009
"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("kind", sa.String(8), nullable=False, server_default="send"))
        batch.add_column(sa.Column("source_job_id", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("gone_count", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("too_old_count", sa.Integer(), nullable=False, server_default="0"))
    op.create_index("ix_broadcast_jobs_source_job_id", "broadcast_jobs", ["source_job_id"])


def downgrade():
    op.drop_index("ix_broadcast_jobs_source_job_id", table_name="broadcast_jobs")
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "too_old_count")
    op.drop_column("broadcast_jobs", "gone_count")
    op.drop_column("broadcast_jobs", "source_job_id")
    op.drop_column("broadcast_jobs", "kind")
