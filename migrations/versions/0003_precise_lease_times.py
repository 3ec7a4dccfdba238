"""Lease and not_before keep sub-second precision on MySQL/MariaDB (DATETIME(6)).

Revision ID: 0003
Revises: 0002
"""
from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = ("lease_expires_at", "not_before")


def upgrade():
    # SQLite keeps fractions in its text timestamps already; only MySQL needs the change.
    if op.get_bind().dialect.name not in ("mysql", "mariadb"):
        return
    for name in COLUMNS:
        op.alter_column("broadcast_jobs", name, existing_type=sa.DateTime(),
                        type_=mysql.DATETIME(fsp=6), existing_nullable=True)


def downgrade():
    if op.get_bind().dialect.name not in ("mysql", "mariadb"):
        return
    for name in COLUMNS:
        op.alter_column("broadcast_jobs", name, existing_type=mysql.DATETIME(fsp=6),
                        type_=sa.DateTime(), existing_nullable=True)
