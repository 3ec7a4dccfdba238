"""Keyboards: a job's rows of buttons, and each button's counters.

Revision ID: 0026
Revises: 0025
"""
from alembic import op
import sqlalchemy as sa

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    # A plain ADD COLUMN: a batch copy of broadcast_jobs would cascade-delete every item (see 0013).
    op.add_column("broadcast_jobs", sa.Column("keyboard", sa.Text(), nullable=True))
    op.create_table(
        "broadcast_buttons",
        sa.Column("job_id", BIG_ID, sa.ForeignKey("broadcast_jobs.id", ondelete="CASCADE"), primary_key=True,
                  autoincrement=False),
        sa.Column("position", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("clicks", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("first_clicks", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("presses", sa.Integer(), nullable=False, server_default="0"),
        **MYSQL,
    )


def downgrade():
    op.drop_table("broadcast_buttons")
    op.drop_column("broadcast_jobs", "keyboard")
