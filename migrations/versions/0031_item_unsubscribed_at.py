"""A copy records when its unsubscribe button opted its recipient out, so a job counts each user once.

Revision ID: 0031
Revises: 0030
"""
from alembic import op
import sqlalchemy as sa

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade():
    # NULL until the recipient's press on this job's button opts them out; set once, by a guarded UPDATE, so
    # unsubscribed_count moves once per (job, user) however often they resubscribe and press again.
    # A nullable column at the end: MariaDB adds it in place, without copying the items table.
    op.add_column("broadcast_job_items", sa.Column("unsubscribed_at", sa.DateTime(), nullable=True))


def downgrade():
    # A plain DROP COLUMN (SQLite >= 3.35), as 0030's.
    op.drop_column("broadcast_job_items", "unsubscribed_at")
