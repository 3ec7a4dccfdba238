"""Foundation: users, settings, processed updates, admin wizard state.

Revision ID: 0001
Revises: 
"""
from alembic import op
import sqlalchemy as sa

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('users',
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('first_name', sa.String(length=255), server_default='', nullable=False),
    sa.Column('last_name', sa.String(length=255), nullable=True),
    sa.Column('username', sa.String(length=64), nullable=True),
    sa.Column('language_code', sa.String(length=16), nullable=True),
    sa.Column('is_admin', sa.Boolean(), server_default=sa.text('0'), nullable=False),
    sa.Column('is_blocked', sa.Boolean(), server_default=sa.text('0'), nullable=False),
    sa.Column('blocked_at', sa.DateTime(), nullable=True),
    sa.Column('main_channel_status', sa.String(length=16), server_default=sa.text("'unknown'"), nullable=False),
    sa.Column('main_channel_checked_at', sa.DateTime(), nullable=True),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    mysql_charset='utf8mb4',
    mysql_collate='utf8mb4_unicode_ci',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.create_index('ix_users_audience', ['is_blocked', 'main_channel_status', 'id'], unique=False)
    op.create_table('settings',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('value', sa.String(length=255), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_settings')),
    mysql_charset='utf8mb4',
    mysql_collate='utf8mb4_unicode_ci',
    mysql_engine='InnoDB'
    )
    op.create_table('processed_updates',
    sa.Column('update_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('processed_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('update_id', name=op.f('pk_processed_updates')),
    mysql_charset='utf8mb4',
    mysql_collate='utf8mb4_unicode_ci',
    mysql_engine='InnoDB'
    )
    with op.batch_alter_table('processed_updates', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_processed_updates_processed_at'), ['processed_at'], unique=False)
    op.create_table('admin_states',
    sa.Column('admin_id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('step', sa.String(length=32), nullable=False),
    sa.Column('draft', sa.Text(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('admin_id', name=op.f('pk_admin_states')),
    mysql_charset='utf8mb4',
    mysql_collate='utf8mb4_unicode_ci',
    mysql_engine='InnoDB'
    )


def downgrade():
    op.drop_table('admin_states')
    op.drop_table('processed_updates')
    op.drop_table('settings')
    op.drop_table('users')
