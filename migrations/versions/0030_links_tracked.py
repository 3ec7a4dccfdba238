"""A job records whether its copies' link buttons were tracked, so an untracked one reads "not counted", not 0.

Revision ID: 0030
Revises: 0029
"""
from alembic import op
import sqlalchemy as sa

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade():
    # True: each copy's link carried its own tracked token (PUBLIC_URL was set); False: the links went out as
    # given, so clicks could not be counted; NULL: a job made before this column (read as before: by its buttons).
    op.add_column("broadcast_jobs", sa.Column("links_tracked", sa.Boolean(), nullable=True))


def downgrade():
    # A plain DROP COLUMN (SQLite >= 3.35), as 0021's: a batch copy of broadcast_jobs would cascade to its items.
    op.drop_column("broadcast_jobs", "links_tracked")
