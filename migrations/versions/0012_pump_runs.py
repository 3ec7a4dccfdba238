"""Pump runs recorded bot-wide (one row per source, a rolling aggregate) and the cron watch row.

Revision ID: 0012
Revises: 0011
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

TABLE_ARGS = dict(mysql_charset="utf8mb4", mysql_collate="utf8mb4_unicode_ci", mysql_engine="InnoDB")
PRECISE = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")


def upgrade():
    # Bounded by design: one row per source (cron, cli, admin, fallback), updated in place.
    op.create_table(
        "pump_runs",
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("runs", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("processed_total", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("ms_total", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("last_started_at", PRECISE, nullable=True),
        sa.Column("last_finished_at", PRECISE, nullable=True),
        sa.Column("last_ms", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("last_processed", sa.BigInteger(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("source", name=op.f("pk_pump_runs")),
        **TABLE_ARGS,
    )
    # One row (id 1), created on demand: when cron was last seen, the outage's alert, the fallback's lease.
    op.create_table(
        "cron_watch",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("last_cron_at", PRECISE, nullable=True),
        sa.Column("alerted_at", PRECISE, nullable=True),
        sa.Column("slice_token", sa.String(length=36), nullable=True),
        sa.Column("slice_until", PRECISE, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cron_watch")),
        **TABLE_ARGS,
    )


def downgrade():
    op.drop_table("cron_watch")
    op.drop_table("pump_runs")
