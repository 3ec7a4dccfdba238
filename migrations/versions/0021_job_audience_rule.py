"""A job keeps the segment rule it was created for: a snapshot no later edit of the segment changes.

Revision ID: 0021
Revises: 0020
"""
from alembic import op
import sqlalchemy as sa

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade():
    # JSON of app.models.segment_rule.Target; NULL: a job made from the plain audience columns alone.
    op.add_column("broadcast_jobs", sa.Column("audience_rule", sa.Text(), nullable=True))


def downgrade():
    # A plain DROP COLUMN (SQLite >= 3.35): a batch copy of broadcast_jobs would drop the old table, and
    # ON DELETE CASCADE would take every item with it.
    op.drop_column("broadcast_jobs", "audience_rule")
