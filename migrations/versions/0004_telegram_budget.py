"""One bot-wide Telegram budget: GCRA lanes and per-chat pace, shared by every process.

Revision ID: 0004
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TABLE_ARGS = dict(mysql_charset="utf8mb4", mysql_collate="utf8mb4_unicode_ci", mysql_engine="InnoDB")


def upgrade():
    # Lane rows are created on demand by the first reservation (an upsert).
    op.create_table(
        "telegram_budget",
        sa.Column("lane", sa.String(length=16), nullable=False),
        sa.Column("next_us", sa.BigInteger(), nullable=False),
        sa.Column("hold_until_us", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("lane", name=op.f("pk_telegram_budget")),
        **TABLE_ARGS,
    )
    op.create_table(
        "telegram_chat_pace",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("next_us", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_telegram_chat_pace")),
        **TABLE_ARGS,
    )


def downgrade():
    op.drop_table("telegram_chat_pace")
    op.drop_table("telegram_budget")
