"""The one reader of source text whose file a run named: a coverage point's file, the spec a
failure points into. Those names come from a spec's report, a result record or a remote-cache
entry, so they are untrusted: a spec (or a planted entry) can name ``../x.ts``, ``/proc/self/
environ`` or a committed symlink to a file outside the project, and whatever we read ends up in
the HTML page, the console's ``--show-coverage`` and the coverage files.

So a name is read only when it resolves (symlinks followed) to a regular file inside the project
root, outside ``node_modules`` and outside hidden folders and files (``.env``, ``.git``,
``.as-test``: secrets and our own state, never a spec's source), and only up to
``MAX_SOURCE_BYTES``. Anything else is "not available": never opened, or opened without blocking
(a FIFO) and closed unread. Every reader of such text goes through ``read_project_source``.

Snapshot files (model/snapshots.py) and the sources an import scan reads (build/imports.py) are
named by a committed file or a spec too, so they are read by the same mechanism:
``read_project_file`` (the project's own files, our hidden folders allowed) and
``read_regular_file`` (any regular file, bounded, never a FIFO or a device). Our own state files
are read by it too, through core/state_files.py, which also refuses them as symlinks.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_SOURCE_BYTES = 4 * 1024 * 1024  # a source file past this is shown as not available
_EXCLUDED_FOLDER = "node_modules"  # dependencies: not the project's sources, and not ours to show


class NotReadable(Exception):
    """A named file exists but is not one we read: why, in a few words a user can act on."""


def read_project_source(root: Path, name: str) -> str | None:
    """The text of ``name`` (relative to ``root``, as as-test's cwd would read it); None when it
    is not a readable regular file of the project's own sources, or is over the size cap."""
    resolved = project_source_path(root, name)
    if resolved is None:
        return None
    try:
        data = read_regular_file(resolved, MAX_SOURCE_BYTES)
    except (OSError, NotReadable):
        return None
    return data.decode("utf-8", errors="replace")


def project_source_path(root: Path, name: str) -> Path | None:
    """Where ``name`` really is when that is one of the project's own source files; else None."""
    try:
        return project_file_path(root, name, hidden_folders=False)
    except (OSError, NotReadable):
        return None


def read_project_file(root: Path, name: str, *, hidden_folders: bool, max_bytes: int) -> bytes:
    """The bytes of ``name`` under ``project_file_path``'s rules, and at most ``max_bytes``.

    FileNotFoundError when nothing is there; NotReadable when something is that we do not read
    (outside the project, not a regular file, too big); another OSError when reading failed."""
    return read_regular_file(
        project_file_path(root, name, hidden_folders=hidden_folders), max_bytes
    )


def project_file_path(root: Path, name: str, *, hidden_folders: bool) -> Path:
    """Where ``name`` really is (symlinks followed), when that is inside ``root``, outside
    ``node_modules`` and not hidden. ``hidden_folders`` lets it sit in a hidden folder (our own
    snapshots live in ``.as-test/``) but never be a hidden file (``.env``) or in ``.git``.

    FileNotFoundError when nothing is there; NotReadable when it is somewhere else."""
    if not name or "\0" in name:
        raise NotReadable("is not a file name")
    _raise_when_missing(os.path.join(root, name))
    try:
        base = root.resolve(strict=True)
        resolved = (base / name).resolve(strict=True)
    except FileNotFoundError:
        raise
    except ValueError as error:  # a lone surrogate, which no file name on disk can hold
        raise NotReadable("is not a file name") from error
    except (OSError, RuntimeError) as error:  # a symlink loop, a name too long
        raise NotReadable(f"cannot be resolved ({error})") from error
    try:
        parts = resolved.relative_to(base).parts
    except ValueError:
        raise NotReadable("is a symlink to a file outside the project") from None
    if not parts or _EXCLUDED_FOLDER in parts or ".git" in parts:
        raise NotReadable("is not one of the project's own files")
    hidden = parts[-1:] if hidden_folders else parts
    if any(part.startswith(".") for part in hidden):
        raise NotReadable("is not one of the project's own files (a hidden one)")
    return resolved


def _raise_when_missing(path: str) -> None:
    """FileNotFoundError when nothing is at ``path``, as resolving it would raise, but with one
    ``stat`` instead of one per part of the root and the name (most snapshot files a run checks
    do not exist: about 0.9 million instructions a spec of a call with nothing to do, issue
    40). The kernel follows the path as ``resolve(strict=True)`` does, part by part, and says
    ENOENT where that finds a part missing (only through /proc's own links, which the kernel
    follows and realpath reads, may it say so where resolving would go on: an answer of
    "missing", never a read); any other answer (a symlink loop, a file used as a folder, a name
    it cannot encode) is left to the resolving that follows."""
    try:
        os.stat(path)
    except FileNotFoundError:
        raise
    except (OSError, ValueError):
        pass


def read_regular_file(path: Path, max_bytes: int) -> bytes:
    """At most ``max_bytes`` of a regular file; NotReadable for anything else (a FIFO, a device,
    a folder) or a bigger file. The descriptor is opened without following a last symlink (callers
    pass a resolved path: one appearing now is a swap) and without blocking (a FIFO would wait for
    a writer), then checked before a byte is read."""
    return read_regular_file_with_status(path, max_bytes)[0]


def read_named_file(path: Path, max_bytes: int) -> bytes:
    """The file ``path`` names, followed through any symlinks to wherever it leads (a file the
    user named, an import's source), read as ``read_regular_file`` reads it: a link loop is
    NotReadable too, and a missing file FileNotFoundError."""
    try:
        resolved = path.resolve(strict=True)
    except RuntimeError as error:  # a symlink loop, before Python 3.13
        raise NotReadable("is a loop of symlinks") from error
    return read_regular_file(resolved, max_bytes)


def file_signature(status: os.stat_result) -> str:
    """What tells one version of a file from another without reading it: the same inode of the
    same device, with the same size and modification and change times. A write in place by
    another program, of the same size and within one tick of the kernel's file clock (a few
    milliseconds), goes unseen; doit's own test of a file dependency (the same modification
    time) is looser (output/report_state.py, config/toolchain.py and run/runner_script.py keep
    what they read by it)."""
    return (
        f"{status.st_dev}:{status.st_ino}:{status.st_size}:"
        f"{status.st_mtime_ns}:{status.st_ctime_ns}"
    )


def read_regular_file_with_status(path: Path, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """``read_regular_file``, with the status of the very file read (taken before reading)."""
    descriptor, status = open_regular_file(path, max_bytes)
    try:
        return _read_at_most(descriptor, max_bytes), status
    finally:
        os.close(descriptor)


def open_regular_file(path: Path, max_bytes: int) -> tuple[int, os.stat_result]:
    """The descriptor ``read_regular_file`` reads (the caller closes it) and its status, for a
    caller that reads only part of the file; the same errors."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except ValueError as error:
        raise NotReadable("is not a file name") from error
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotReadable("became a symlink while it was read") from error
        raise
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise NotReadable("is not a regular file (a FIFO, a device or a folder)")
        if status.st_size > max_bytes:
            raise NotReadable(f"is larger than {_mib(max_bytes)}")
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, status


def _read_at_most(descriptor: int, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    left = max_bytes + 1  # one more byte tells a file that grew past the cap
    while left > 0:
        chunk = os.read(descriptor, min(left, 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    if left <= 0:
        raise NotReadable(f"is larger than {_mib(max_bytes)}")
    return b"".join(chunks)


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):g} MiB"
