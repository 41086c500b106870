"""Atomic file writes: a reader (or a crash) sees the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import glob
import os
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from astest_tasks.core.disk_space import out_of_space_is_disk_full
from astest_tasks.core.guest_text import utf8_file_bytes


def _current_umask() -> int:
    # os.umask can only be read by setting it; set it back at once (called once per process).
    mask = os.umask(0)
    os.umask(mask)
    return mask


# Files are created readable by their owner only while being written; the files we write are
# ordinary project files (snapshots, runners, reports) that teammates and CI users must be able to
# read.
_NEW_FILE_MODE = 0o666 & ~_current_umask()


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    Raises ``DiskFull`` (disk_space.py) when the disk has no space for it: ``path`` is then as
    it was, and the temporary file is gone."""
    with out_of_space_is_disk_full(path.parent, f"writing {path.name}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_through_temporary(path, data, _existing_mode(path), _replace)
    _sweep_stale_temporaries(path)


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
    with out_of_space_is_disk_full(path.parent, f"writing {path.name}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        return _write_through_temporary(path, utf8_file_bytes(text), _NEW_FILE_MODE, _link_if_new)


class _NameTaken(Exception):
    """The temporary name chosen is another write's file (not ours to remove)."""


# In a process that leaves through os._exit (the run ahead's helper, when doit goes), held
# while a write is under way, so that the write can end first: no temporary file outlives that
# process. Only there: a Ctrl-C landing between a lock's acquire and its release would leave it
# held and every later write waiting, and that process ignores Ctrl-C.
_WRITING: threading.Lock | None = None


def guard_writes() -> None:
    """From now on, writes in this process can be waited for by ``stop_writing``."""
    global _WRITING
    _WRITING = threading.Lock()


def stop_writing() -> None:
    """Wait for a write under way to end, and let no other start (after ``guard_writes``): for
    a process about to leave through ``os._exit``, where no clean-up of a write would run."""
    if _WRITING is not None:
        _WRITING.acquire()


def _write_through_temporary(
    path: Path, data: bytes, mode: int, install: Callable[[Path, Path], bool]
) -> bool:
    """Write ``data`` to a new temporary file beside ``path`` and ``install`` it there.

    Whatever interrupts this (an error, Ctrl-C, SIGTERM) at whatever instant, the temporary file
    does not outlive the call: its name is chosen before the file exists and before the ``try``,
    so the clean-up knows it even when the interrupt lands just after the file was created
    (tempfile.mkstemp returns the name only after creating the file, which left one behind).
    """
    guard = _WRITING
    if guard is None:
        return _write_through_temporary_now(path, data, mode, install)
    with guard:
        return _write_through_temporary_now(path, data, mode, install)


def _write_through_temporary_now(
    path: Path, data: bytes, mode: int, install: Callable[[Path, Path], bool]
) -> bool:
    while True:
        temporary = staging_name(path)
        try:
            _create_and_write(temporary, data, mode)
            return install(temporary, path)
        except _NameTaken:
            continue
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise


def _create_and_write(temporary: Path, data: bytes, mode: int) -> None:
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        raise _NameTaken from None
    # Unbuffered: a buffered file that meets a full disk fails its write, then fails again
    # flushing on close and stays open; a raw one has nothing left to flush and always closes.
    with os.fdopen(fd, "wb", buffering=0) as handle:
        os.fchmod(handle.fileno(), mode)
        view = memoryview(data)
        while view:
            view = view[handle.write(view) :]
        os.fsync(handle.fileno())


def _replace(temporary: Path, path: Path) -> bool:
    os.replace(temporary, path)
    return True


def _link_if_new(temporary: Path, path: Path) -> bool:
    """Put the finished ``temporary`` at ``path`` unless a file is there; False if one was."""
    try:
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise
        except OSError:
            # No hard links on this filesystem: claim the name exclusively, then swap the
            # finished file in over our own empty placeholder.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _NEW_FILE_MODE))
            os.replace(temporary, path)
        return True
    except FileExistsError:
        return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


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


def _existing_mode(path: Path) -> int:
    """Keep the permissions of the file being replaced (an executable runner stays executable).
    Only a regular file's: what a symlink there points at (a world-writable file elsewhere, a
    pipe) says nothing of ours, and the symlink itself is replaced."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return _NEW_FILE_MODE
    return status.st_mode & 0o7777 if stat.S_ISREG(status.st_mode) else _NEW_FILE_MODE


# -- files written piece by piece (a download), put in place only once judged whole --------------


def staging_name(path: Path) -> Path:
    """A fresh name for a temporary file beside ``path``, named as this module's writes name
    theirs (so one a kill left behind is swept as theirs are). The caller keeps the name before
    the file exists, to remove it whatever interrupts the writing."""
    # secrets.token_hex(8) itself (os.urandom, as hex), without loading secrets and hmac into
    # every call (issue 40)
    return path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")


def create_staged(temporary: Path) -> BinaryIO:
    """Create ``temporary`` (a ``staging_name``), readable by its owner only until installed;
    FileExistsError in the unlikely case another write drew the same name."""
    temporary.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    return os.fdopen(fd, "wb")


def install_staged(temporary: Path, path: Path) -> None:
    """Put the finished ``temporary`` at ``path`` in one rename, durably and with the mode a
    write of ``path`` would give it; a symlink at ``path`` is replaced, never followed."""
    guard = _WRITING
    with guard if guard is not None else contextlib.nullcontext():
        fd = os.open(temporary, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fchmod(fd, _existing_mode(path))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    _sweep_stale_temporaries(path)
