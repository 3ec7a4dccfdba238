"""The doctor's host reads: cgroup v2 and v1, CloudLinux LVE, rlimits and disk; on a built tree and on this machine."""
from __future__ import annotations

import os
import resource
from pathlib import Path

from app.services.doctor import host

GB = 1024 ** 3


def tree(root: Path, files: dict[str, str]) -> Path:
    """Write files (path relative to root: text) and return root."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_cgroup_v2_reads_memory_max_and_pids_max_of_its_own_group_and_keeps_the_smallest(tmp_path):
    root = tree(tmp_path, {"proc/self/cgroup": "0::/user.slice/app\n",
                           "sys/fs/cgroup/user.slice/app/memory.max": str(2 * GB),
                           "sys/fs/cgroup/user.slice/memory.max": str(GB),
                           "sys/fs/cgroup/user.slice/app/pids.max": "max",
                           "sys/fs/cgroup/user.slice/pids.max": "100"})
    memory = host.memory_limit(root)
    assert memory.value == 1024 and memory.read and memory.source.endswith("user.slice/memory.max")
    assert host.process_limit(root).value <= 100


def test_cgroup_v2_max_is_no_limit_but_read(tmp_path):
    root = tree(tmp_path, {"proc/self/cgroup": "0::/\n", "sys/fs/cgroup/memory.max": "max\n"})
    memory = host.memory_limit(root)
    assert memory.value is None and memory.read


def test_cgroup_v1_reads_limit_in_bytes_and_its_huge_no_limit(tmp_path):
    root = tree(tmp_path, {"proc/self/cgroup": "4:memory:/lve/1001\n3:pids:/lve/1001\n",
                           "sys/fs/cgroup/memory/lve/1001/memory.limit_in_bytes": str(512 * 1024 * 1024),
                           "sys/fs/cgroup/pids/lve/1001/pids.max": "40"})
    assert host.memory_limit(root).value == 512
    assert host.process_limit(root).value <= 40
    huge = tree(tmp_path / "huge", {"proc/self/cgroup": "4:memory:/\n",
                                    "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"})
    assert host.memory_limit(huge).value is None and host.memory_limit(huge).read


def test_a_container_sees_only_the_mount_so_the_parent_files_are_read(tmp_path):
    root = tree(tmp_path, {"proc/self/cgroup": "4:memory:/docker/abc\n",
                           "sys/fs/cgroup/memory/memory.limit_in_bytes": str(GB)})
    assert host.memory_limit(root).value == 1024


def test_cloudlinux_lve_limits_are_read_in_pages_for_this_account(tmp_path):
    uid = os.getuid()
    root = tree(tmp_path, {"proc/lve/list": "6:LVE EP lCPU lPMEM lNPROC lEP\n"
                                            f"{uid + 1} 0 100 0 0 0\n{uid} 3 100 262144 100 20\n"})
    assert host.memory_limit(root).value == 1024  # 262,144 pages of 4 KiB
    assert host.process_limit(root).value <= 100
    assert host.entry_processes(root) == 20


def test_nothing_readable_says_so_and_lists_where_it_looked(tmp_path):
    memory = host.memory_limit(tmp_path)
    assert memory.value is None and not memory.read and memory.tried
    assert any(p.endswith("memory.max") for p in memory.tried) and any("lve" in p for p in memory.tried)
    assert host.entry_processes(tmp_path) is None
    assert host.own_usage(tmp_path) == {"rss_mb": None, "threads": None}
    assert host.disk(str(tmp_path / "absent")) == (str(tmp_path / "absent"), None, None)


def test_this_machine_reads_real_values_or_says_it_could_not():
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    nproc = host.process_limit()
    assert nproc.read  # RLIMIT_NPROC is always there on Linux
    if soft != resource.RLIM_INFINITY:
        assert nproc.value is not None and nproc.value <= soft
    memory = host.memory_limit()
    assert memory.read or memory.value is None
    usage = host.own_usage()
    assert usage["rss_mb"] > 10 and usage["threads"] >= 1
    path, free, inodes = host.disk(".")
    assert path == "." and free > 0
