"""What a bulk command did: changed, already so, and ids that are no user (counted, the first few shown)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice

CHUNK = 1000  # ids per SELECT and per multi-row write: one short statement each, whatever the total
UNKNOWN_SHOWN = 5


@dataclass
class BulkResult:
    """Counts of one bulk command; unknown ids are never created, only counted and the first few kept."""

    changed: int = 0
    unchanged: int = 0
    unknown: int = 0
    unknown_first: list[int] = field(default_factory=list)

    def note_unknown(self, ids: Iterable[int]) -> None:
        """Count ids that are no user, keeping the first few to show."""
        for uid in ids:
            self.unknown += 1
            if len(self.unknown_first) < UNKNOWN_SHOWN:
                self.unknown_first.append(uid)

    def unknown_line(self) -> str:
        """Return "; 3 ids are no user (first: 5, 6, 7)" or ""."""
        if not self.unknown:
            return ""
        more = ", …" if self.unknown > len(self.unknown_first) else ""
        return (f"; {self.unknown} unknown id{'s' if self.unknown != 1 else ''} (no such user, nothing created; "
                f"first: {', '.join(map(str, self.unknown_first))}{more})")


def chunks(user_ids: Iterable[int], size: int = CHUNK) -> Iterator[list[int]]:
    """Yield the ids in lists of at most size, each id once in all: a repeated id is counted once.

    The ids seen are kept (a set of ints, as a segment's ids already are):
    an id listed twice, however far apart, would otherwise count again as
    "already had it" or as a second unknown id.
    """
    seen: set[int] = set()
    it = iter(user_ids)
    while batch := list(islice(it, size)):
        chunk = [uid for uid in dict.fromkeys(batch) if uid not in seen]
        seen.update(chunk)
        if chunk:
            yield chunk
