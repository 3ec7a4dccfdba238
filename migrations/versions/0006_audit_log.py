"""The audit log: who did what to which job or setting, and when.

Revision ID: 0006
Revises: 0005
"""
from alembic import op
import sqlalchemy as sa

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

TABLE_ARGS = dict(mysql_charset="utf8mb4", mysql_collate="utf8mb4_unicode_ci", mysql_engine="InnoDB")
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade():
    op.create_table(
        "audit_log",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("actor", sa.String(length=32), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("job_id", BIG_ID, nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
        **TABLE_ARGS,
    )
    op.create_index("ix_audit_log_job", "audit_log", ["job_id", "id"], unique=False)


def downgrade():
    op.drop_index("ix_audit_log_job", table_name="audit_log")
    op.drop_table("audit_log")
