"""The remote keys of a build and a run: the local key's inputs (cache_keys.py), made portable.

The local up-to-date check is doit's: the ``file_dep`` contents and the key dictionaries of
``cache_keys.py``. A remote key is made of exactly those, so what makes a local task stale makes
its remote entry another one, and an input tracked locally later is covered remotely at once:

- each input file by its path relative to the project (a package manifest found in a
  ``node_modules`` above the project, or behind a link, by its path from that ``node_modules``
  on) and the SHA-256 of its content, a missing one as missing;
- the local key dictionary whole (it holds the toolchain versions, the config slice and the key
  format), beside the remote key's own format (portable_keys.py);
- for a run, what of the machine a result may depend on and one machine never changes, so the
  local key has no need of it (``machine_part``): the wasmtime that runs the guest, the Python
  that runs the runner scripts, the operating system and the processor. A pass stored by another
  wasmtime is a miss here, not a result this machine might not give.

No absolute path, user, host name or file time goes in: two clones anywhere compute the same
key. A build's key has no machine part: asc is JavaScript with binaryen compiled to
WebAssembly, and makes the same bytes on any machine from the same inputs and versions.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import field
from pathlib import Path, PurePosixPath
from typing import Any

from astest_tasks.core.frozen import frozen
from astest_tasks.remote.portable_keys import file_digest, remote_key
from astest_tasks.remote.remote_use import RemoteUse

MISSING = "missing"  # the digest of an input that does not exist (yet): a pending import
_NODE_MODULES = "node_modules"


class NotPortable(ValueError):
    """An input that has no name on another machine: the task is neither looked up nor stored."""


@frozen
class RemoteKeyInputs:
    """What a task's remote key is made of, decided when the task is planned (plain data, handed
    to the action); the files are read when the action computes the key."""

    kind: str  # "build" or "run"
    local_key: Mapping[str, Any] = field(hash=False)
    files: tuple[str, ...]  # as doit's file_dep: relative to the project, or absolute

    def key(self, project_root: Path) -> str:
        """The ``/ac/`` key; ``NotPortable`` when an input has no portable name."""
        return remote_key(
            self.kind,
            portable_digests(project_root, self.files),
            toolchain=machine_part() if self.kind == "run" else {},  # the rest: the local key
            config={"local": dict(self.local_key)},
        )


def machine_part() -> dict[str, str]:
    """What a run's result may depend on beyond its inputs, on this machine."""
    import platform  # only a call with a remote cache asks

    return {
        "wasmtime": importlib.metadata.version("wasmtime"),
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "os": sys.platform,
        "processor": platform.machine(),
    }


def portable_name(project_root: Path, path: str) -> str:
    """``path``'s name on any machine: relative to the project, or from its ``node_modules``."""
    absolute = Path(os.path.abspath(project_root / path))
    root = Path(os.path.abspath(project_root))
    for base in (root, root.resolve()):
        try:
            relative = absolute.relative_to(base)
        except ValueError:
            continue
        if ".." not in relative.parts:
            return PurePosixPath(*relative.parts).as_posix()
    parts = absolute.parts
    if _NODE_MODULES in parts:
        last = len(parts) - 1 - parts[::-1].index(_NODE_MODULES)
        return PurePosixPath(*parts[last:]).as_posix()
    raise NotPortable(f"{path} lies outside the project and outside any node_modules")


def portable_digests(project_root: Path, files: Iterable[str]) -> dict[str, str]:
    digests: dict[str, str] = {}
    for path in files:
        name = portable_name(project_root, path)
        location = project_root / path
        try:
            digests[name] = file_digest(location)
        except FileNotFoundError:
            digests[name] = MISSING
        except OSError as exc:  # a folder, or unreadable: no content to name it by
            raise NotPortable(f"{path} cannot be read ({exc.strerror})") from None
    return digests


@frozen
class RemoteTask:
    """A build's or run's use of the remote cache, decided when its task is planned."""

    use: RemoteUse
    key: RemoteKeyInputs
    outputs: tuple[str, ...] = ()  # a build's files beside its record, relative to the project

    def portable_key(self, project_root: Path) -> str | None:
        """The task's ``/ac/`` key as its inputs are now; None when one has no portable name
        or cannot be read (such a task is neither looked up nor stored)."""
        try:
            return self.key.key(project_root)
        except (NotPortable, OSError):
            return None
