"""Click tracking: each recipient's first click on the tracked button (items.clicked_at) and the job's click counters.

Revision ID: 0014
Revises: 0013
"""
from alembic import op
import sqlalchemy as sa

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.add_column(sa.Column("clicked_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("clicks_total", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("clicks_unique", sa.Integer(), nullable=False, server_default="0"))


def downgrade():
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "clicks_unique")
    op.drop_column("broadcast_jobs", "clicks_total")
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.drop_column("clicked_at")
