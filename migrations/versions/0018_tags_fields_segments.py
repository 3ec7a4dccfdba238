"""The audience model's data: users' tags and custom fields, and saved segments.

Revision ID: 0018
Revises: 0017
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}


def exact(length):
    """Byte-for-byte comparison on MySQL too (its default collation folds case and accents)."""
    return sa.String(length).with_variant(mysql.VARCHAR(length, collation="utf8mb4_bin"), "mysql", "mariadb")


def upgrade():
    op.create_table(
        "user_tags",
        sa.Column("user_id", sa.BigInteger(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("tag", exact(64), primary_key=True),
        sa.Column("origin", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    # A tag's users are one range of this index (population, counts, `tag remove`).
    op.create_index("ix_user_tags_tag", "user_tags", ["tag", "user_id"])
    op.create_table(
        "user_fields",
        sa.Column("user_id", sa.BigInteger(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("name", exact(64), primary_key=True),
        sa.Column("value", exact(255), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        **MYSQL,
    )
    op.create_index("ix_user_fields_value", "user_fields", ["name", "value", "user_id"])
    op.create_table(
        "segments",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True, autoincrement=True),
        sa.Column("name", exact(64), nullable=False),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("name", name="uq_segments_name"),
        **MYSQL,
    )


def downgrade():
    op.drop_table("segments")
    op.drop_index("ix_user_fields_value", table_name="user_fields")
    op.drop_table("user_fields")
    op.drop_index("ix_user_tags_tag", table_name="user_tags")
    op.drop_table("user_tags")
