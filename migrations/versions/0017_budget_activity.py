"""The bot-wide budget knows who else is sending: owner and activity windows on each lane's row.

Revision ID: 0017
Revises: 0016
"""
from alembic import op
import sqlalchemy as sa

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

COLUMNS = ("owner_id", "owner_until_us", "others_id", "others_until_us")


def upgrade():
    # add_column directly (no batch copy): SQLite adds a NOT NULL column with a default in place.
    for name in COLUMNS:
        op.add_column("telegram_budget", sa.Column(name, sa.BigInteger(), server_default="0", nullable=False))


def downgrade():
    with op.batch_alter_table("telegram_budget") as batch:
        for name in COLUMNS:
            batch.drop_column(name)
