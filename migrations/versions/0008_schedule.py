"""Scheduled broadcasts: a send time and the moment a missed schedule was put to the admins.

Revision ID: 0008
Revises: 0007
"""
from alembic import op
import sqlalchemy as sa

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade():
    # Batch mode: SQLite rebuilds the table, MySQL/MariaDB alter it in place.
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("send_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("missed_at", sa.DateTime(), nullable=True))


def downgrade():
    # Code without schedules knows no 'scheduled' state: such jobs would never start, so they end here.
    # Stored times are UTC: MySQL's CURRENT_TIMESTAMP is the session's zone, SQLite's is UTC.
    now = "UTC_TIMESTAMP()" if op.get_bind().dialect.name in ("mysql", "mariadb") else "CURRENT_TIMESTAMP"
    op.execute(f"UPDATE broadcast_jobs SET status = 'cancelled', finished_at = {now} WHERE status = 'scheduled'")
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "missed_at")
    op.drop_column("broadcast_jobs", "send_at")
