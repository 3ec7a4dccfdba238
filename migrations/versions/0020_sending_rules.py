"""Sending rules: urgent jobs and quiet-hours pauses, the frequency cap's count and index, unsubscribes per job.

Revision ID: 0020
Revises: 0019
"""
from alembic import op
import sqlalchemy as sa

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMNs (see 0013): a batch copy of broadcast_jobs with foreign keys on would cascade-delete items.
    # urgent: the job ignores quiet hours. pause_kind: 'quiet' for the engine's quiet-hours pause (cron resumes
    # it), NULL for every other pause (an admin's is never resumed on its own).
    op.add_column("broadcast_jobs", sa.Column("urgent", sa.Boolean(), server_default=sa.text("0"), nullable=False))
    op.add_column("broadcast_jobs", sa.Column("pause_kind", sa.String(16), nullable=True))
    # Recipients skipped by the frequency cap (a part of skipped_count), and users the job's button opted out.
    op.add_column("broadcast_jobs", sa.Column("capped_count", sa.Integer(), server_default="0", nullable=False))
    op.add_column("broadcast_jobs", sa.Column("unsubscribed_count", sa.Integer(), server_default="0",
                                              nullable=False))
    # The frequency cap's read per block: a block's recipients' copies sent since the Tehran day began.
    op.create_index("ix_broadcast_job_items_user_sent", "broadcast_job_items", ["user_id", "status", "sent_at"])


def downgrade():
    op.drop_index("ix_broadcast_job_items_user_sent", table_name="broadcast_job_items")
    op.drop_column("broadcast_jobs", "unsubscribed_count")
    op.drop_column("broadcast_jobs", "capped_count")
    op.drop_column("broadcast_jobs", "pause_kind")
    op.drop_column("broadcast_jobs", "urgent")
