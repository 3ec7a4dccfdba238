"""Drop the items' user-led index: the frequency cap reads today's jobs' (job, user) keys instead.

Every population and every send's outcome wrote into ix_broadcast_job_items_user_sent, an index ordered by
user over all of the bot's history: after months of broadcasts, tens of millions of entries, each new one
at a random place (a random read and write on a small buffer pool). Nothing else read it.

Revision ID: 0028
Revises: 0027
"""
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index("ix_broadcast_job_items_user_sent", table_name="broadcast_job_items")


def downgrade():
    op.create_index("ix_broadcast_job_items_user_sent", "broadcast_job_items", ["user_id", "status", "sent_at"])
