"""A process's descendants and whether they have ended, read from /proc (Linux).

For tests that end a process abruptly and then check that nothing it started is left behind.
An orphan is adopted by init, which may reap it late (or, in a container, never): a zombie has
ended all the same.
"""

from __future__ import annotations

import time
from pathlib import Path

# A ceiling for a broken test, not a timing the test relies on.
END_LIMIT_S = 60.0


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()  # the name may hold spaces and parentheses


def alive(pid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, at this instant."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and fields[0] not in ("Z", "X"):
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "(ended)"


def wait_until_ended(pids: set[int], limit_s: float = END_LIMIT_S) -> set[int]:
    """Poll until every one of ``pids`` has ended; returns those still alive at the ceiling."""
    deadline = time.monotonic() + limit_s
    left = {pid for pid in pids if alive(pid)}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {pid for pid in left if alive(pid)}
    return left
