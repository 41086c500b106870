"""What the remote cache did in one run, and the summary's line about it."""

from __future__ import annotations

import threading

from astest_tasks.core.frozen import frozen


@frozen
class RemoteCounts:
    hits: int = 0
    misses: int = 0
    uploaded: int = 0
    uploaded_bytes: int = 0


class RemoteCounters:
    """Thread-safe: uploads count from the executor's threads while lookups count from the
    caller's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hits = self._misses = self._uploaded = self._bytes = 0

    def hit(self) -> None:
        with self._lock:
            self._hits += 1

    def miss(self) -> None:
        with self._lock:
            self._misses += 1

    def uploaded(self, size: int) -> None:
        with self._lock:
            self._uploaded += 1
            self._bytes += size

    def snapshot(self) -> RemoteCounts:
        with self._lock:
            return RemoteCounts(self._hits, self._misses, self._uploaded, self._bytes)


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def render_remote_line(counts: RemoteCounts) -> str:
    """``remote cache: 18 hits, 2 misses, 2 uploaded (1.2 MB)``."""
    return (
        f"remote cache: {_counted(counts.hits, 'hit', 'hits')}, "
        f"{_counted(counts.misses, 'miss', 'misses')}, "
        f"{counts.uploaded} uploaded ({format_size(counts.uploaded_bytes)})"
    )


def format_size(size: int) -> str:
    """Decimal units as disk and network tools print them: ``512 B``, ``1.2 MB``."""
    if size < 1000:
        return f"{size} B"
    value = float(size)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 999.95 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")
