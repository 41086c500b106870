"""Remote keys that travel between machines: built from paths relative to the project root,
content digests, toolchain versions and a config slice, never from an absolute path, a user
name or a file time, so two clones anywhere compute the same key for the same inputs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

from astest_tasks.remote.entries import canonical_json

# Bumped whenever what goes into a key, or what an entry holds, changes meaning: old entries
# then simply miss instead of being read wrongly.
REMOTE_KEY_FORMAT = 1


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def relative_input_digests(root: Path, files: Iterable[Path]) -> dict[str, str]:
    """``{posix path relative to root: sha256 of the content}``; a file outside the root has no
    portable name and is refused (its toolchain belongs in the versions instead)."""
    base = root.resolve()
    digests: dict[str, str] = {}
    for file in files:
        resolved = file.resolve()
        try:
            relative = resolved.relative_to(base)
        except ValueError:
            raise ValueError(
                f"{file} lies outside the project {root}; a remote key names inputs relative "
                "to the project, so describe it by a version instead"
            ) from None
        digests[PurePosixPath(*relative.parts).as_posix()] = file_digest(resolved)
    return digests


def remote_key(
    kind: str,
    inputs: Mapping[str, str],
    toolchain: Mapping[str, str],
    config: Mapping[str, object],
) -> str:
    """The SHA-256 naming one build or run in ``/ac/``: ``kind`` (e.g. ``"build"``), the input
    digests of ``relative_input_digests``, the toolchain versions and the JSON config slice."""
    for name in inputs:
        if name.startswith("/") or "\\" in name or ".." in PurePosixPath(name).parts:
            raise ValueError(f"input {name!r} is not a relative posix path inside the project")
    document = {
        "format": REMOTE_KEY_FORMAT,
        "kind": kind,
        "inputs": dict(inputs),
        "toolchain": dict(toolchain),
        "config": dict(config),
    }
    return hashlib.sha256(canonical_json(document)).hexdigest()
