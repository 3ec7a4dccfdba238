"""Saved segments' names take the one name rule (NFC, lower case, Persian yeh/kaf): `VIP` and `vip` become one name.

A name whose normal form another segment already holds keeps its rule
under `<name>-<id>`: the segment already in normal form keeps the name,
else the oldest (lowest id). A name the rule refuses (an invisible
character, a digit that is not 0-9 in some script, no letter or digit)
becomes `segment-<id>`. Each rename is an audit row (`segment_renamed`,
actor `migration`, detail `old -> new`), so `flask audit` shows what moved.

Revision ID: 0035
Revises: 0030
"""
import re
import unicodedata
from datetime import datetime, timezone

from alembic import op
import sqlalchemy as sa

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

MAX = 64
# A frozen copy of app/models/names.py at this revision: a migration must not change when the app does.
PERSIAN = str.maketrans({"\u064a": "\u06cc", "\u0643": "\u06a9"})
IGNORABLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
                       "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3"
                       "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]")


def _normal(name: str) -> str | None:
    """Return name's normal form, or None when the name rule refuses it (old names hold no ZWNJ: \\w has none)."""
    value = unicodedata.normalize("NFC", name.strip()).lower().translate(PERSIAN)
    allowed = all(ch in "_-" or unicodedata.category(ch)[0] in "LM" or unicodedata.category(ch) == "Nd"
                  for ch in value)
    if not value or len(value) > MAX or IGNORABLE.search(value) or not allowed or not value.strip("_-"):
        return None
    return value


def _free(wanted: str, taken: set[str]) -> str:
    """Return wanted, or wanted with -2, -3... when taken (the suffix fits in MAX characters)."""
    found, n = wanted, 1
    while found in taken:
        n += 1
        found = f"{wanted[:MAX - len(str(n)) - 1]}-{n}"
    taken.add(found)
    return found


def _renames(rows) -> dict[int, tuple[str, str]]:
    """Return {segment id: (old name, new name)} for every name that changes."""
    groups: dict[str, list[tuple[int, str]]] = {}
    for segment_id, name in sorted(rows):
        groups.setdefault(_normal(name) or f"segment-{segment_id}", []).append((segment_id, name))
    taken = set(groups)
    renames = {}
    for normal, members in groups.items():
        keeper = next((m for m in members if m[1] == normal), members[0])
        for segment_id, name in members:
            new = normal if (segment_id, name) == keeper else _free(f"{normal[:MAX - len(str(segment_id)) - 1]}"
                                                                    f"-{segment_id}", taken)
            if new != name:
                renames[segment_id] = (name, new)
    return renames


def upgrade():
    conn = op.get_bind()
    renames = _renames(conn.execute(sa.text("SELECT id, name FROM segments")).all())
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    # Through a placeholder first: a new name may be the one another renamed row still holds.
    for segment_id in renames:
        conn.execute(sa.text("UPDATE segments SET name = :name WHERE id = :id"),
                     {"name": f"\x01{segment_id}", "id": segment_id})
    for segment_id, (old, new) in renames.items():
        conn.execute(sa.text("UPDATE segments SET name = :name WHERE id = :id"), {"name": new, "id": segment_id})
        conn.execute(sa.text("INSERT INTO audit_log (at, actor, action, detail) "
                             "VALUES (:at, 'migration', 'segment_renamed', :detail)"),
                     {"at": now, "detail": f"segment #{segment_id}: {old} -> {new}"})


def downgrade():
    # Nothing to undo: the normal names are names the older rule reads and looks up as they are; the
    # merged-away spellings are in audit_log (segment_renamed).
    pass
