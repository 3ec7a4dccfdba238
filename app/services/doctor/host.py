"""Read this account's limits from the host: cgroup v2/v1, CloudLinux LVE, rlimits, free disk; never raise.

Each reader returns what it found and where, or None with the places it
tried, so the doctor says "could not read X" instead of failing. root moves
the file system (tests point it at a tree of their own).
"""
from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field
from pathlib import Path

# A cgroup v1 "no limit" is a huge page-rounded number, not a word.
UNLIMITED_BYTES = 1 << 60
MB = 1024 * 1024
# LVE limits count 4 KiB pages.
LVE_PAGE = 4096


@dataclass
class Limit:
    """One limit: its value (None: none set, or unread), whether some file said so, and where it was looked for."""

    value: float | None = None
    read: bool = False
    source: str = ""
    tried: list[str] = field(default_factory=list)

    def take(self, value: float | None, source: str) -> None:
        """Keep the smaller of two limits read (a parent cgroup's cap binds its children)."""
        self.read = True
        if value is not None and (self.value is None or value < self.value):
            self.value, self.source = value, source
        elif not self.source:
            self.source = source


def _text(path: Path) -> str | None:
    """Return a file's stripped text, or None when it cannot be read."""
    try:
        return path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None


def cgroup_paths(root: Path) -> dict[str, str]:
    """Return this process's cgroup per controller ("" for the v2 unified one), from /proc/self/cgroup."""
    found = {}
    for line in (_text(root / "proc/self/cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                found[controller] = parts[2]
    return found


def _candidates(base: Path, own: str | None, name: str) -> list[Path]:
    """Return name in this process's cgroup and each parent up to the mount (a container sees only the mount)."""
    paths, rel = [], Path((own or "/").lstrip("/"))
    while True:
        paths.append(base / rel / name)
        if rel == Path(".") or str(rel) == "":
            return paths
        rel = rel.parent


def _read_cgroup(limit: Limit, base: Path, own: str | None, name: str, scale: int) -> None:
    """Read one cgroup file along the path to the mount: "max" or a huge number is no limit."""
    for path in _candidates(base, own, name):
        raw = _text(path)
        limit.tried.append(str(path))
        if raw is None or not raw:
            continue
        if raw == "max" or (raw.isdigit() and int(raw) >= UNLIMITED_BYTES):
            limit.take(None, str(path))
        elif raw.isdigit():
            limit.take(int(raw) if scale == 1 else int(raw) / scale, str(path))


def lve_limits(root: Path) -> dict[str, int]:
    """Return this account's CloudLinux LVE limits from /proc/lve/list (header row names the columns), or {}."""
    lines = (_text(root / "proc/lve/list") or "").splitlines()
    if len(lines) < 2:
        return {}
    header = lines[0].split(":", 1)[-1].split()
    for line in lines[1:]:
        cells = line.split()
        if len(cells) == len(header) and cells[0] == str(os.getuid()):
            return {name: int(cell) for name, cell in zip(header, cells, strict=True) if cell.isdigit()}
    return {}


def memory_limit(root: Path = Path("/")) -> Limit:
    """Return the memory limit in MB: cgroup v2 memory.max, v1 memory.limit_in_bytes, LVE lPMEM; the smallest."""
    limit, own = Limit(), cgroup_paths(root)
    _read_cgroup(limit, root / "sys/fs/cgroup", own.get(""), "memory.max", MB)
    _read_cgroup(limit, root / "sys/fs/cgroup/memory", own.get("memory"), "memory.limit_in_bytes", MB)
    lve = lve_limits(root)
    limit.tried.append(str(root / "proc/lve/list"))
    pmem = lve.get("lPMEM") or lve.get("lMEMPHY")
    if lve:
        limit.take(pmem * LVE_PAGE / MB if pmem else None, str(root / "proc/lve/list"))
    return limit


def process_limit(root: Path = Path("/")) -> Limit:
    """Return the process limit (threads count): cgroup pids.max (v2, v1), LVE lNPROC, RLIMIT_NPROC; the smallest."""
    limit, own = Limit(), cgroup_paths(root)
    _read_cgroup(limit, root / "sys/fs/cgroup", own.get(""), "pids.max", 1)
    _read_cgroup(limit, root / "sys/fs/cgroup/pids", own.get("pids"), "pids.max", 1)
    lve = lve_limits(root)
    limit.tried.append(str(root / "proc/lve/list"))
    if lve:
        limit.take(lve.get("lNPROC") or None, str(root / "proc/lve/list"))
    limit.tried.append("RLIMIT_NPROC")
    soft = _rlimit("RLIMIT_NPROC")
    if soft is not False:
        limit.take(soft, "RLIMIT_NPROC")
    return limit


def address_space_mb() -> float | None:
    """Return RLIMIT_AS in MB (None: unlimited or unreadable)."""
    soft = _rlimit("RLIMIT_AS")
    return soft / MB if soft else None


def _rlimit(name: str) -> int | None | bool:
    """Return a soft rlimit (None: unlimited; False: this system has no such limit)."""
    which = getattr(resource, name, None)
    if which is None:
        return False
    try:
        soft, _hard = resource.getrlimit(which)
    except (OSError, ValueError):
        return False
    return None if soft == resource.RLIM_INFINITY else soft


def entry_processes(root: Path = Path("/")) -> int | None:
    """Return the LVE's entry-process limit (concurrent web requests, cron runs and shells), if readable."""
    return lve_limits(root).get("lEP") or None


def own_usage(root: Path = Path("/")) -> dict:
    """Return this command's own RSS (MB) and threads from /proc/self/status (None each when unreadable)."""
    status = dict(line.split(":", 1) for line in (_text(root / "proc/self/status") or "").splitlines() if ":" in line)
    rss = status.get("VmRSS", "").split()
    threads = status.get("Threads", "").strip()
    return {"rss_mb": round(int(rss[0]) / 1024, 1) if rss and rss[0].isdigit() else None,
            "threads": int(threads) if threads.isdigit() else None}


def disk(path: str) -> tuple[str, int | None, int | None]:
    """Return (path, free MB, free inodes) for the file system holding path; None where it cannot tell."""
    try:
        st = os.statvfs(path)
    except OSError:
        return path, None, None
    return path, st.f_bavail * st.f_frsize // MB, st.f_favail if st.f_files else None
