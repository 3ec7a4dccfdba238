"""A/B versions with their own buttons and media, and who clicked which button.

Revision ID: 0027
Revises: 0026
"""
from alembic import op
import sqlalchemy as sa

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

MYSQL = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
COUNTERS = ("job_id", "position", "clicks", "first_clicks", "presses")


def _buttons_table(name: str, with_variant: bool) -> None:
    """Create a broadcast_buttons table under name, keyed by (job, [variant,] position)."""
    variant = [sa.Column("variant", sa.String(length=1), primary_key=True, nullable=False, server_default="")]
    op.create_table(
        name,
        sa.Column("job_id", BIG_ID, sa.ForeignKey("broadcast_jobs.id", ondelete="CASCADE"), primary_key=True,
                  autoincrement=False),
        *(variant if with_variant else []),
        sa.Column("position", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("clicks", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("first_clicks", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("presses", sa.Integer(), nullable=False, server_default="0"),
        **MYSQL,
    )


def _swap_buttons(with_variant: bool, where: str = "") -> None:
    """Rebuild broadcast_buttons with (or without) the variant in its key, its rows copied.

    A new table, copied and renamed, on both databases alike: the primary key changes, and nothing
    refers to this table (a copy of broadcast_jobs itself would cascade-delete every item, see 0013).
    The new table's name differs each way: a renamed table keeps its foreign key's name, and MySQL
    wants those unique in the schema.
    """
    name = "broadcast_buttons_v27" if with_variant else "broadcast_buttons_v26"
    _buttons_table(name, with_variant)
    columns = ", ".join(COUNTERS)
    op.execute(f"INSERT INTO {name} ({columns}) SELECT {columns} FROM broadcast_buttons {where}")
    op.drop_table("broadcast_buttons")
    op.rename_table(name, "broadcast_buttons")


def upgrade():
    # A plain ADD COLUMN: a batch copy of broadcast_jobs would cascade-delete every item (see 0013).
    op.add_column("broadcast_jobs", sa.Column("ab_content", sa.Text(), nullable=True))
    _swap_buttons(True)
    op.create_table(
        "broadcast_item_clicks",
        sa.Column("item_id", BIG_ID, sa.ForeignKey("broadcast_job_items.id", ondelete="CASCADE"), primary_key=True,
                  autoincrement=False),
        sa.Column("position", sa.Integer(), primary_key=True, autoincrement=False),
        **MYSQL,
    )


def downgrade():
    op.drop_table("broadcast_item_clicks")
    # An A/B version's own buttons had no row before: their counters go with the variant.
    _swap_buttons(False, "WHERE variant = ''")
    op.drop_column("broadcast_jobs", "ab_content")
