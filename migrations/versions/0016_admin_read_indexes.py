"""Admin reads at a million users: covering indexes for the pre-send count and the source stats, the stats snapshot.

Revision ID: 0016
Revises: 0015
"""
from alembic import op
import sqlalchemy as sa

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}


def upgrade():
    # op.create_index / op.drop_index directly: no batch copy of any table (on SQLite a copy of a parent
    # table with foreign keys on could cascade deletes).
    op.create_index("ix_users_sources", "users", ["start_source", "started_at", "is_blocked", "opted_out_at",
                                                  "last_seen_at", "main_channel_status", "language_code"])
    op.drop_index("ix_users_source", table_name="users")
    op.create_index("ix_users_presend", "users", ["is_blocked", "opted_out_at", "last_seen_at", "started_at",
                                                  "main_channel_status", "language_code", "start_source"])
    op.drop_index("ix_users_last_seen", table_name="users")
    op.create_table(
        "stats_snapshots",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("taken_at", sa.DateTime(), nullable=False),
        sa.Column("took_ms", sa.Integer(), server_default="0", nullable=False),
        sa.Column("figures", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stats_snapshots")),
        **MYSQL,
    )


def downgrade():
    op.drop_table("stats_snapshots")
    op.create_index("ix_users_last_seen", "users", ["is_blocked", "last_seen_at"])
    op.drop_index("ix_users_presend", table_name="users")
    op.create_index("ix_users_source", "users", ["start_source", "started_at"])
    op.drop_index("ix_users_sources", table_name="users")
