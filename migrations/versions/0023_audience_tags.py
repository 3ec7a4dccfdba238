"""Tags from deep links, CSV import's staging rows, and a broadcast's tag-on-tap button.

Revision ID: 0023
Revises: 0022
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}
TAP_COLUMNS = ("tap_tagged", "tap_presses", "tap_answer", "tap_tag", "tap_text")


def exact(length):
    """Byte-for-byte comparison on MySQL too (its default collation folds case and accents)."""
    return sa.String(length).with_variant(mysql.VARCHAR(length, collation="utf8mb4_bin"), "mysql", "mariadb")


def upgrade():
    # /start SOURCE gives TAG; a payload is case-sensitive, so is the key.
    op.create_table(
        "source_tags",
        sa.Column("source", exact(64), primary_key=True),
        sa.Column("tag", exact(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    # A CSV import's changes, staged in short committed chunks, then applied in one transaction.
    op.create_table(
        "import_rows",
        sa.Column("import_id", sa.String(32), primary_key=True),
        sa.Column("seq", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("op", sa.String(1), nullable=False),
        sa.Column("name", exact(64), nullable=False),
        sa.Column("value", exact(255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    # Plain ADD COLUMNs: a batch copy of broadcast_jobs would drop the old table, and with foreign keys on,
    # ON DELETE CASCADE would take every item of broadcast_job_items with it (see 0013).
    op.add_column("broadcast_jobs", sa.Column("tap_text", sa.String(64), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("tap_tag", sa.String(64), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("tap_answer", sa.String(200), nullable=True))
    op.add_column("broadcast_jobs", sa.Column("tap_presses", sa.Integer(), server_default=sa.text("0"),
                                              nullable=False))
    op.add_column("broadcast_jobs", sa.Column("tap_tagged", sa.Integer(), server_default=sa.text("0"),
                                              nullable=False))


def downgrade():
    for column in TAP_COLUMNS:
        op.drop_column("broadcast_jobs", column)
    op.drop_table("import_rows")
    op.drop_table("source_tags")
