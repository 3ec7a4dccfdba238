"""Broadcast engine: jobs and their per-recipient items.

Revision ID: 0002
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('broadcast_jobs',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('audience', sa.String(length=16), nullable=False),
    sa.Column('content_type', sa.String(length=8), nullable=False),
    sa.Column('from_chat_id', sa.BigInteger(), nullable=True),
    sa.Column('source_message_id', sa.BigInteger(), nullable=True),
    sa.Column('text', sa.Text(), nullable=True),
    sa.Column('parse_mode', sa.String(length=16), nullable=True),
    sa.Column('button_text', sa.String(length=64), nullable=True),
    sa.Column('button_url', sa.String(length=512), nullable=True),
    sa.Column('batch_size', sa.Integer(), nullable=False),
    sa.Column('total_count', sa.Integer(), server_default='0', nullable=False),
    sa.Column('sent_count', sa.Integer(), server_default='0', nullable=False),
    sa.Column('failed_count', sa.Integer(), server_default='0', nullable=False),
    sa.Column('skipped_count', sa.Integer(), server_default='0', nullable=False),
    sa.Column('unknown_count', sa.Integer(), server_default='0', nullable=False),
    sa.Column('lease_token', sa.String(length=36), nullable=True),
    sa.Column('lease_expires_at', sa.DateTime(), nullable=True),
    sa.Column('not_before', sa.DateTime(), nullable=True),
    sa.Column('pause_reason', sa.String(length=255), nullable=True),
    sa.Column('active_slot', sa.Integer(), nullable=True),
    sa.Column('paid', sa.Boolean(), server_default=sa.text('0'), nullable=False),
    sa.Column('paid_limit', sa.Integer(), nullable=True),
    sa.Column('progress_chat_id', sa.BigInteger(), nullable=True),
    sa.Column('progress_message_id', sa.BigInteger(), nullable=True),
    sa.Column('progress_lang', sa.String(length=8), server_default='fa', nullable=False),
    sa.Column('created_by', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_broadcast_jobs')),
    sa.UniqueConstraint('active_slot', name=op.f('uq_broadcast_jobs_active_slot')),
    mysql_charset='utf8mb4',
    mysql_collate='utf8mb4_unicode_ci',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('broadcast_jobs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_broadcast_jobs_status'), ['status'], unique=False)
    op.create_table('broadcast_job_items',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('job_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('status', sa.String(length=8), nullable=False),
    sa.Column('error', sa.String(length=255), nullable=True),
    sa.Column('sent_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['job_id'], ['broadcast_jobs.id'], name=op.f('fk_broadcast_job_items_job_id_broadcast_jobs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_broadcast_job_items')),
    sa.UniqueConstraint('job_id', 'user_id', name='uq_broadcast_job_items_job_user'),
    mysql_charset='utf8mb4',
    mysql_collate='utf8mb4_unicode_ci',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('broadcast_job_items', schema=None) as batch_op:
        batch_op.create_index('ix_broadcast_job_items_next', ['job_id', 'status', 'id'], unique=False)


def downgrade():
    op.drop_table('broadcast_job_items')
    op.drop_table('broadcast_jobs')
