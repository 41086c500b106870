"""A real tmpfs of a chosen size, mounted by a test: a disk that fills up for real.

Mounting needs root (or CAP_SYS_ADMIN). Where a test cannot mount one it skips, with one reason,
except under CI (``CI=true``), which runs as root and must run these tests: there it fails.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def mounted_tmpfs(folder: Path, size_bytes: int) -> Iterator[Path]:
    """``folder`` (created) with a tmpfs of ``size_bytes`` mounted on it; unmounted after."""
    folder.mkdir(parents=True, exist_ok=True)
    mount = ["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(folder)]
    try:
        done = subprocess.run(mount, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError as exc:
        _cannot(f"mount could not start: {exc}")
    if done.returncode != 0:
        _cannot(f"{' '.join(mount)} failed: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True, stdin=subprocess.DEVNULL)


def fill(folder: Path, leave_bytes: int) -> Path:
    """Fill the disk holding ``folder`` with one file, leaving about ``leave_bytes`` free; the
    file is returned, so that removing it gives the space back."""
    filler = folder / "filler"
    stats = os.statvfs(folder)
    free = stats.f_bfree * stats.f_frsize
    filler.write_bytes(b"\0" * max(0, free - leave_bytes))
    return filler


def free_bytes(folder: Path) -> int:
    stats = os.statvfs(folder)
    return stats.f_bfree * stats.f_frsize


def _cannot(reason: str) -> None:
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"a tmpfs is required under CI: {reason}", pytrace=False)
    pytest.skip(f"no tmpfs can be mounted here: {reason}")
