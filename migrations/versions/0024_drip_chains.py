"""Drip chains: chains, their steps, the (step, user) deliveries claimed once, and a step job's chain_step_id.

Revision ID: 0024
Revises: 0023
"""
from alembic import op
import sqlalchemy as sa

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "chains",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("trigger_kind", sa.String(8), nullable=False),
        sa.Column("trigger_value", sa.String(64), nullable=True),
        sa.Column("button_text", sa.String(64), nullable=True),
        sa.Column("button_url", sa.String(512), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    op.create_index("ix_chains_status", "chains", ["status"])
    op.create_table(
        "chain_steps",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("chain_id", sa.BigInteger(), sa.ForeignKey("chains.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("delay_seconds", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.UniqueConstraint("chain_id", "position", name="uq_chain_steps_position"),
        **MYSQL,
    )
    # UNIQUE(step, user): the guarantee that nobody gets a step twice, whatever runs at once.
    op.create_table(
        "chain_deliveries",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("step_id", sa.BigInteger(), sa.ForeignKey("chain_steps.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("job_id", sa.BigInteger(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("step_id", "user_id", name="uq_chain_deliveries_step_user"),
        **MYSQL,
    )
    op.create_index("ix_chain_deliveries_job", "chain_deliveries", ["job_id", "user_id"])
    # A plain ADD COLUMN: a batch copy of broadcast_jobs would cascade-delete every item (see 0013).
    op.add_column("broadcast_jobs", sa.Column("chain_step_id", sa.BigInteger(), nullable=True))
    op.create_index("ix_broadcast_jobs_chain_step_id", "broadcast_jobs", ["chain_step_id"])


def downgrade():
    op.drop_index("ix_broadcast_jobs_chain_step_id", table_name="broadcast_jobs")
    op.drop_column("broadcast_jobs", "chain_step_id")
    op.drop_index("ix_chain_deliveries_job", table_name="chain_deliveries")
    op.drop_table("chain_deliveries")
    op.drop_table("chain_steps")
    op.drop_index("ix_chains_status", table_name="chains")
    op.drop_table("chains")
