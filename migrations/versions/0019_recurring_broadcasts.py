"""Recurring broadcasts: the series (draft, rule, next occurrence) and each occurrence made or skipped.

Revision ID: 0019
Revises: 0018
"""
from alembic import op
import sqlalchemy as sa

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "recurring_broadcasts",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("rule", sa.String(64), nullable=False),
        sa.Column("draft", sa.Text(), nullable=False),
        sa.Column("if_missed", sa.String(4), nullable=False),
        sa.Column("until_at", sa.DateTime(), nullable=True),
        sa.Column("count_limit", sa.Integer(), nullable=True),
        sa.Column("next_at", sa.DateTime(), nullable=True),
        sa.Column("occurrences", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("made_count", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("lang", sa.String(8), nullable=False, server_default="fa"),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    op.create_index("ix_recurring_broadcasts_due", "recurring_broadcasts", ["status", "next_at"])
    # (series, time) is the primary key: an occurrence exists once, whoever makes it.
    op.create_table(
        "recurring_occurrences",
        sa.Column("recurring_id", BIG_ID, sa.ForeignKey("recurring_broadcasts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("occurs_at", sa.DateTime(), primary_key=True),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("job_id", sa.BigInteger(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    op.create_index("ix_recurring_occurrences_job", "recurring_occurrences", ["job_id"])


def downgrade():
    op.drop_index("ix_recurring_occurrences_job", table_name="recurring_occurrences")
    op.drop_table("recurring_occurrences")
    op.drop_index("ix_recurring_broadcasts_due", table_name="recurring_broadcasts")
    op.drop_table("recurring_broadcasts")
