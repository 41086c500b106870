"""Atomic file writes: a reader (or a crash) sees the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
import time
from pathlib import Path

from astest_tasks.guest_text import utf8_file_bytes


def _current_umask() -> int:
    # os.umask can only be read by setting it; set it back at once (called once per process).
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates files readable by their owner only; the files we write are ordinary project
# files (snapshots, runners, reports) that teammates and CI users must be able to read.
_NEW_FILE_MODE = 0o666 & ~_current_umask()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _existing_mode(path))
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        # Leave nothing behind on failure or Ctrl-C: the old file (if any) stays intact.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _sweep_stale_temporaries(path)


# Only a SIGKILL (or a power cut) in the middle of a write leaves a temporary file; one this old
# belongs to no write still in progress, since one doit at a time holds the project.
STALE_TEMPORARY_S = 3600.0


def _sweep_stale_temporaries(path: Path) -> None:
    """Remove temporary files that killed writes of ``path`` left beside it."""
    cutoff = time.time() - STALE_TEMPORARY_S
    for leftover in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        with contextlib.suppress(OSError):
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8; a lone surrogate (from a spec) is written as ``\\ud800``, which is
    its escape inside a JSON string (guest_text.utf8_file_bytes)."""
    write_bytes_atomic(path, utf8_file_bytes(text))


def create_text_atomic(path: Path, text: str) -> bool:
    """Write ``path`` only if it does not exist, atomically; False if it was already there.

    For files that become the user's (runner scripts, scaffolding): hard-linking the finished
    temporary file into place fails if the name exists, so a file created by someone else in the
    meantime is never replaced, and no reader ever sees a half-written one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _NEW_FILE_MODE)
            handle.write(utf8_file_bytes(text))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp_name, path)
        except FileExistsError:
            raise
        except OSError:
            # No hard links on this filesystem: claim the name exclusively, then swap the
            # finished file in over our own empty placeholder.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _NEW_FILE_MODE))
            os.replace(tmp_name, path)
        return True
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)


def _existing_mode(path: Path) -> int:
    """Keep the permissions of the file being replaced (an executable runner stays executable)."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return _NEW_FILE_MODE
