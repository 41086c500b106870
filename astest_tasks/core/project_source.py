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
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_SOURCE_BYTES = 4 * 1024 * 1024  # a source file past this is shown as not available
_EXCLUDED_FOLDER = "node_modules"  # dependencies: not the project's sources, and not ours to show


def read_project_source(root: Path, name: str) -> str | None:
    """The text of ``name`` (relative to ``root``, as as-test's cwd would read it); None when it
    is not a readable regular file of the project's own sources, or is over the size cap."""
    resolved = project_source_path(root, name)
    if resolved is None:
        return None
    data = _read_regular_file(resolved)
    return None if data is None else data.decode("utf-8", errors="replace")


def project_source_path(root: Path, name: str) -> Path | None:
    """Where ``name`` really is when that is one of the project's own source files; else None."""
    if not name or "\0" in name:
        return None
    try:
        base = root.resolve(strict=True)
        resolved = (base / name).resolve(strict=True)
        relative = resolved.relative_to(base)
    except (OSError, ValueError, RuntimeError):  # missing, outside the root, a symlink loop
        return None
    parts = relative.parts
    if not parts or _EXCLUDED_FOLDER in parts or any(part.startswith(".") for part in parts):
        return None
    return resolved


def _read_regular_file(path: Path) -> bytes | None:
    """At most ``MAX_SOURCE_BYTES`` of a regular file; None for anything else. The descriptor is
    opened without following a last symlink (the path is resolved: one appearing now is a swap)
    and without blocking (a FIFO would wait for a writer), then checked before a byte is read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_SOURCE_BYTES:
            return None
        chunks: list[bytes] = []
        left = MAX_SOURCE_BYTES + 1  # one more byte tells a file that grew past the cap
        while left > 0:
            chunk = os.read(descriptor, min(left, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return None if left <= 0 else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(descriptor)
