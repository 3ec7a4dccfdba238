"""Each recipient's message_id (so a job's messages can be acted on later), and a job's retry_of.

Revision ID: 0009
Revises: 0008
"""
from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.add_column(sa.Column("message_id", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("retry_of", sa.BigInteger(), nullable=True))
    op.create_index("ix_broadcast_jobs_retry_of", "broadcast_jobs", ["retry_of"])


def downgrade():
    op.drop_index("ix_broadcast_jobs_retry_of", table_name="broadcast_jobs")
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "retry_of")
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.drop_column("message_id")
