"""A chain remembers the last Tehran day its daily digest covered, so two cron passes send it once.

Revision ID: 0033
Revises: 0032
"""
from alembic import op
import sqlalchemy as sa

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade():
    # NULL: no digest yet. The guarded UPDATE digest_day < day (app.repository.chain_digest) claims a day once.
    op.add_column("chains", sa.Column("digest_day", sa.Date(), nullable=True))


def downgrade():
    # A plain DROP COLUMN (SQLite >= 3.35), as 0030's: a batch copy of chains would cascade to its steps.
    op.drop_column("chains", "digest_day")
