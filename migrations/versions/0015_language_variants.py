"""Language variants: a job's per-language texts (broadcast_jobs.variants) and the one each recipient got (items.variant).

Revision ID: 0015
Revises: 0014
"""
from alembic import op
import sqlalchemy as sa

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("variants", sa.Text(), nullable=True))
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.add_column(sa.Column("variant", sa.String(length=8), nullable=True))


def downgrade():
    # A plain DROP COLUMN (SQLite >= 3.35 has it): a batch copy of broadcast_jobs would drop the old
    # table, and with foreign keys on, ON DELETE CASCADE would take every item with it.
    op.drop_column("broadcast_job_items", "variant")
    op.drop_column("broadcast_jobs", "variants")
