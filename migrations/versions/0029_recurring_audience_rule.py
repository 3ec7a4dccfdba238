"""A recurring broadcast keeps the segment rule it was created for, as a job does: each occurrence sends to it.

Revision ID: 0029
Revises: 0028
"""
from alembic import op
import sqlalchemy as sa

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade():
    # JSON of app.models.segment_rule.Target; NULL: the draft's plain audience (or, for a series stored
    # before this column, the segment ids its draft holds, resolved at each occurrence).
    op.add_column("recurring_broadcasts", sa.Column("audience_rule", sa.Text(), nullable=True))


def downgrade():
    op.drop_column("recurring_broadcasts", "audience_rule")
