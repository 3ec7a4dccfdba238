"""Albums: the parts an admin sent, gathered across processes, and a job's ordered part ids.

Revision ID: 0007
Revises: 0006
"""
from alembic import op
import sqlalchemy as sa

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TABLE_ARGS = dict(mysql_charset="utf8mb4", mysql_collate="utf8mb4_unicode_ci", mysql_engine="InnoDB")


def upgrade():
    # The primary key is the race guard: a part inserted twice (two processes) is ignored.
    op.create_table(
        "album_parts",
        sa.Column("admin_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("media_group_id", sa.String(length=64), nullable=False),
        sa.Column("message_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("admin_id", "media_group_id", "message_id", name=op.f("pk_album_parts")),
        **TABLE_ARGS,
    )
    with op.batch_alter_table("broadcast_jobs") as batch:
        batch.add_column(sa.Column("source_message_ids", sa.Text(), nullable=True))


def downgrade():
    # Plain DROP COLUMNs (SQLite >= 3.35 has them): a batch copy of broadcast_jobs would drop the old table,
    # and with foreign keys on, ON DELETE CASCADE would take every item of broadcast_job_items with it.
    op.drop_column("broadcast_jobs", "source_message_ids")
    op.drop_table("album_parts")
