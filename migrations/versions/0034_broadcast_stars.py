"""A paid broadcast's Stars: our estimate and what the bot's balance fell by while it sent.

Revision ID: 0034
Revises: 0033
"""
from alembic import op
import sqlalchemy as sa

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    # Nanostars throughout (1 Star = 10^9), as getMyStarBalance gives them; a table of its own, so
    # broadcast_jobs needs no batch copy (which would cascade to its items, see 0013).
    op.create_table(
        "broadcast_stars",
        sa.Column("job_id", BIG_ID, sa.ForeignKey("broadcast_jobs.id", ondelete="CASCADE"), primary_key=True,
                  autoincrement=False),
        sa.Column("estimate", sa.BigInteger(), nullable=False),
        sa.Column("opened_balance", sa.BigInteger(), nullable=True),
        sa.Column("spent", sa.BigInteger(), nullable=False, server_default="0"),
        **MYSQL,
    )


def downgrade():
    op.drop_table("broadcast_stars")
