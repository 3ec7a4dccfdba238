"""Saved segments' names take the one name rule (NFC, lower case, Persian yeh/kaf): `VIP` and `vip` become one name.

A name whose normal form another segment already holds keeps its rule
under `<name>-<id>`: the segment already in normal form keeps the name,
else the oldest (lowest id). A name the rule refuses (an invisible
character, a digit that is not 0-9 in some script, no letter or digit)
becomes `segment-<id>`. Each rename is an audit row (`segment_renamed`,
actor `migration`, detail `old -> new`), so `flask audit` shows what moved.

Stored tags take the tag rule too. An invisible (default-ignorable)
character goes, except a zero-width non-joiner between two letters; then
NFC, lower case, Persian yeh/kaf. A user whose two tags become one keeps one
row: the earliest added, with its origin. A user's tag with nothing left
the rule accepts (`_`, `-` or nothing once the invisible characters go) is
dropped. Each changed tag is an audit row (`tag_renamed` or `tag_dropped`,
with its users). Tags that name users elsewhere (deep-link tags, chain
triggers, tap buttons, segment, job and series rules) take the same normal
form; one the rule still refuses stays as stored: no user carries it, so a
rule's `tag-any` of it matches no one and its `tag-none` everyone.

Revision ID: 0035
Revises: 0034
"""
import json
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
ZWNJ = "\u200c"
CHUNK = 500
RULE_TAGS = ("tags_any", "tags_all", "tags_none")
# Where a tag names users: (table, key column, column, JSON or not, WHERE). Updated row by row, by key:
# a plain VARCHAR compares case- and accent-blind on MariaDB, so `WHERE tap_tag = 'Ü'` would find 'u' too.
REFERENCES = (("source_tags", "source", "tag", False, "1 = 1"),
              ("chains", "id", "trigger_value", False, "trigger_kind = 'tag'"),
              ("broadcast_jobs", "id", "tap_tag", False, "tap_tag IS NOT NULL"),
              ("broadcast_jobs", "id", "keyboard", True, "keyboard IS NOT NULL"),
              ("broadcast_jobs", "id", "ab_content", True, "ab_content IS NOT NULL"),
              ("broadcast_jobs", "id", "audience_rule", True, "audience_rule IS NOT NULL"),
              ("segments", "id", "rule", True, "1 = 1"),
              ("recurring_broadcasts", "id", "draft", True, "1 = 1"),
              ("recurring_broadcasts", "id", "audience_rule", True, "audience_rule IS NOT NULL"))


def _normal(name: str) -> str | None:
    """Return name's normal form, or None when the name rule refuses it (old names hold no ZWNJ: \\w has none)."""
    value = unicodedata.normalize("NFC", name.strip()).lower().translate(PERSIAN)
    allowed = all(ch in "_-" or unicodedata.category(ch)[0] in "LM" or unicodedata.category(ch) == "Nd"
                  for ch in value)
    if not value or len(value) > MAX or IGNORABLE.search(value) or not allowed or not value.strip("_-"):
        return None
    return value


def _letter(ch: str, marks: bool = False) -> bool:
    """Tell whether ch is a letter (or, with marks, a combining mark)."""
    return unicodedata.category(ch)[0] in ("LM" if marks else "L")


def _visible(value: str) -> str:
    """Return value without its default-ignorable characters, but for a ZWNJ between two letters."""
    value = IGNORABLE.sub(lambda m: m.group() if m.group() == ZWNJ else "", value)
    return "".join(ch for at, ch in enumerate(value)
                   if ch != ZWNJ or (0 < at < len(value) - 1 and _letter(value[at - 1], True)
                                     and _letter(value[at + 1])))


def _tag(raw: str) -> str | None:
    """Return a stored tag's normal form, or None when nothing of it is a tag the rule accepts."""
    value, before = raw, None
    while value != before:  # a character gone may let NFC compose its neighbours
        before, value = value, _visible(unicodedata.normalize("NFC", value.strip()).lower().translate(PERSIAN))
    allowed = all(ch in "_-" + ZWNJ or _letter(ch, True) or unicodedata.category(ch) == "Nd" for ch in value)
    if not value or len(value) > MAX or not allowed or not value.strip(ZWNJ + "_-"):
        return None
    return value


def _shown(tag: str) -> str:
    """Return tag with its invisible characters escaped, as an audit row shows it."""
    return IGNORABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), tag)


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
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    _segment_names(conn, now)
    _user_tags(conn, now)
    _tag_references(conn)
    _staged_tags(conn)


def _segment_names(conn, now):
    """Give stored segment names the name rule, each rename audited."""
    renames = _renames(conn.execute(sa.text("SELECT id, name FROM segments")).all())
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
    # Nothing to undo: the normal names and tags are ones the older rules read and look up as they are; the
    # merged-away spellings are in audit_log (segment_renamed, tag_renamed, tag_dropped).
    pass


def _user_tags(conn, now):
    """Bring users' tags to normal form: twins merge into the earliest row, tags with nothing left are dropped."""
    stored = conn.execute(sa.text("SELECT DISTINCT tag FROM user_tags")).scalars().all()
    for old in sorted(stored):
        new = _tag(old)
        if new == old:
            continue
        if new is None:
            gone = conn.execute(sa.text("DELETE FROM user_tags WHERE tag = :old"), {"old": old}).rowcount
            _audit(conn, now, "tag_dropped", f"tag {_shown(old)}: dropped from {gone} users (no letter or digit)")
            continue
        merged = _merge_twins(conn, old, new)
        moved = conn.execute(sa.text("UPDATE user_tags SET tag = :new WHERE tag = :old"),
                             {"new": new, "old": old}).rowcount
        _audit(conn, now, "tag_renamed", f"tag {_shown(old)} -> {new}: {moved} users moved, {merged} merged")


def _merge_twins(conn, old, new) -> int:
    """Fold old's rows of users already carrying new into new's (the earlier added wins); return how many."""
    twins = conn.execute(sa.text(
        "SELECT o.user_id, o.origin, o.created_at, n.created_at FROM user_tags o JOIN user_tags n "
        "ON n.user_id = o.user_id AND n.tag = :new WHERE o.tag = :old"), {"old": old, "new": new}).all()
    for user_id, origin, added, kept_added in twins:
        if added < kept_added:
            conn.execute(sa.text("UPDATE user_tags SET origin = :origin, created_at = :added "
                                 "WHERE user_id = :user_id AND tag = :new"),
                         {"origin": origin, "added": added, "user_id": user_id, "new": new})
    users = [row[0] for row in twins]
    for at in range(0, len(users), CHUNK):
        conn.execute(sa.text("DELETE FROM user_tags WHERE tag = :old AND user_id IN :ids")
                     .bindparams(sa.bindparam("ids", expanding=True)), {"old": old, "ids": users[at:at + CHUNK]})
    return len(users)


def _audit(conn, now, action, detail):
    """Write one audit row by the migration."""
    conn.execute(sa.text("INSERT INTO audit_log (at, actor, action, detail) VALUES (:at, 'migration', :action, "
                         ":detail)"), {"at": now, "action": action, "detail": detail})


def _reference(tag):
    """Return a tag that names users in its normal form; one the rule refuses as stored (no user carries it)."""
    return _tag(tag) or tag if isinstance(tag, str) else tag


def _json_tags(node):
    """Return a JSON value with every tag in it (a button's `tag`, a rule's tag lists) in normal form."""
    if isinstance(node, list):
        return [_json_tags(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: (list(dict.fromkeys(_reference(t) for t in value)) if key in RULE_TAGS and isinstance(value, list)
                  else _reference(value) if key == "tag" else _json_tags(value)) for key, value in node.items()}


def _tag_references(conn):
    """Bring every stored tag that names users (not a user's own) to normal form, row by row."""
    for table, key, column, is_json, where in REFERENCES:
        for row_key, value in conn.execute(sa.text(f"SELECT {key}, {column} FROM {table} WHERE {where}")).all():
            if is_json:
                stored = json.loads(value)
                fixed = _json_tags(stored)
                new = value if fixed == stored else json.dumps(fixed, ensure_ascii=False)
            else:
                new = _reference(value)
            if new != value:
                conn.execute(sa.text(f"UPDATE {table} SET {column} = :new WHERE {key} = :key"),
                             {"new": new, "key": row_key})


def _staged_tags(conn):
    """Bring the tags a staged CSV import adds or removes to normal form; drop those with nothing left."""
    staged = conn.execute(sa.text("SELECT DISTINCT name FROM import_rows WHERE op IN ('+', '-')")).scalars().all()
    for old in staged:
        new = _tag(old)
        if new is None:
            conn.execute(sa.text("DELETE FROM import_rows WHERE name = :old AND op IN ('+', '-')"), {"old": old})
        elif new != old:
            conn.execute(sa.text("UPDATE import_rows SET name = :new WHERE name = :old AND op IN ('+', '-')"),
                         {"new": new, "old": old})
