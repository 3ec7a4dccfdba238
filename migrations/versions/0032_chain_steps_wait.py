"""A chain step the daily cap held back waits for the next Tehran day instead of ending the chain.

Revision ID: 0032
Revises: 0031
"""
from datetime import datetime, timezone

from alembic import op
import sqlalchemy as sa

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade():
    # NULL: the delivery's job sends it; set: the cap skipped it, and a cron pass from then claims it again.
    op.add_column("chain_deliveries", sa.Column("wait_until", sa.DateTime(), nullable=True))
    op.create_index("ix_chain_deliveries_waiting", "chain_deliveries", ["step_id", "wait_until"])
    # Steps the cap skipped before this revision ended their chains; they wait now, and go from the next pass.
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    op.execute(sa.text(
        "UPDATE chain_deliveries SET wait_until = :now WHERE EXISTS (SELECT 1 FROM broadcast_job_items i "
        "WHERE i.job_id = chain_deliveries.job_id AND i.user_id = chain_deliveries.user_id "
        "AND i.status = 'skipped' AND i.error = 'frequency_cap')").bindparams(now=now))


def downgrade():
    # Index first: SQLite drops no column an index names.
    op.drop_index("ix_chain_deliveries_waiting", table_name="chain_deliveries")
    op.drop_column("chain_deliveries", "wait_until")
