"""What the benchmarks measure about processes and samples, in one place: percentiles,
and CPU and memory of processes read from ``/proc`` (Linux; the benchmarks run here)."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def percentile(ordered: list[float], q: float) -> float:
    """The ``q`` quantile of already sorted samples (NaN when there are none)."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def ppid_and_cpu(pid: int) -> tuple[int, float]:
    """Parent pid and CPU seconds (user + system) from ``/proc/<pid>/stat``."""
    raw = Path(f"/proc/{pid}/stat").read_text()
    fields = raw[raw.rindex(")") + 2:].split()  # the command name may contain spaces
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _all_processes() -> dict[int, tuple[int, float]]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                found[int(entry.name)] = ppid_and_cpu(int(entry.name))
    return found


def children(pid: int) -> list[int]:
    """The direct children of ``pid``, sorted."""
    return sorted(p for p, (ppid, _) in _all_processes().items() if ppid == pid)


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds used so far by ``root`` and all its descendants (0 for pid 0)."""
    if not root:
        return 0.0
    table = _all_processes()
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += table.get(pid, (0, 0.0))[1]
        todo.extend(p for p, (ppid, _) in table.items() if ppid == pid)
    return total


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def rss_mb(pid: int) -> float:
    match = re.search(r"^VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(match.group(1)) / 1024 if match else float("nan")


def cpu_ns(pid: int) -> int:
    """CPU time of every thread of ``pid`` so far, in nanoseconds (``/proc/<pid>/task/*/
    schedstat``: the scheduler's own count, where ``stat``'s is in 10 ms ticks)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError, IndexError):
            total += int((task / "schedstat").read_text().split()[0])
    return total
