"""Each recipient's copies of an album's parts (copyMessages may skip a part, so the ids need not be consecutive).

Revision ID: 0011
Revises: 0010
"""
from alembic import op
import sqlalchemy as sa

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.add_column(sa.Column("message_ids", sa.Text(), nullable=True))


def downgrade():
    with op.batch_alter_table("broadcast_job_items") as batch:
        batch.drop_column("message_ids")
