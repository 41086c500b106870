"""Where as-test looks for a spec's snapshot file, worked out from the spec's path alone, and
how large a snapshot file may be.

Kept apart from the snapshot store (snapshots.py): planning needs these paths for every spec of
a no-change run, and the store's parsing and writing only when a spec runs.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import Path
from typing import Final

_TESTS_MARKER: Final = "/__tests__/"

# A snapshot file holds the expected values of one spec, as text: real ones stay far below this.
# The cap keeps a committed file that is huge (or a symlink to one) from filling CI's memory;
# it is larger than the 4 MiB of a source file because a spec may snapshot big rendered values.
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024


def js_basename(path: str) -> str:
    # Node's path.basename ignores trailing slashes; posixpath.basename would return "".
    return posixpath.basename(path.rstrip("/"))


def _path_under_tests_dir(spec_path: str) -> str:
    normalized = spec_path.replace("\\", "/")
    marker_at = normalized.rfind(_TESTS_MARKER)
    if marker_at >= 0:
        return normalized[marker_at + len(_TESTS_MARKER) :]
    return js_basename(normalized)


def spec_path_below_tests(spec_path: str) -> str:
    """The spec's path after its last ``/__tests__/`` (else its basename): as-test's file key."""
    return _path_under_tests_dir(spec_path)


def snapshot_path(spec_path: str, snapshot_dir: str) -> str:
    """Where as-test keeps a spec's snapshots, as a normalised posix path under ``snapshot_dir``.

    ``assembly/__tests__/nested/a.spec.ts`` -> ``<snapshot_dir>/nested/a.spec.snap``; a spec not
    under a ``__tests__`` directory uses its basename.
    """
    relative = _path_under_tests_dir(spec_path)
    if relative.endswith(".ts"):
        relative = relative[: -len(".ts")] + ".snap"
    # Like Node's path.join: empty segments vanish, the rest are joined and normalised.
    segments = [segment for segment in (snapshot_dir.replace("\\", "/"), relative) if segment]
    return posixpath.normpath("/".join(segments)) if segments else "."


# The characters that start a glob's dynamic part, as as-test's resolveGlobBase finds them.
_GLOB_META: Final = frozenset("*?[](){}!|+@")


def _glob_base(pattern: str) -> str:
    """``resolveGlobBase``: a pattern's path up to its first glob character's directory."""
    normalized = pattern.replace("\\", "/")
    # A scan, not a regular expression: compiling one cost more than every scan of a call.
    meta_at = next((at for at, char in enumerate(normalized) if char in _GLOB_META), None)
    if meta_at is None:
        base = posixpath.dirname(normalized)
        return "" if base == "." else base
    head = normalized[:meta_at]
    return head[: head.rfind("/")] if "/" in head else ""


def _components(path: str) -> list[str]:
    """The path's parts between runs of either separator; a leading empty part marks a root."""
    parts = path.replace("\\", "/").split("/")
    return [part for index, part in enumerate(parts) if part or index == 0]


def spec_relative_path(project_root: Path, spec_path: str, input_patterns: Sequence[str]) -> str:
    """``resolveSpecRelativePath`` (as-test 1.2.0+): the spec's path below the longest static base
    of the input patterns that contains it, else its basename."""
    absolute = os.path.normpath(os.path.join(project_root, spec_path))
    file_parts = _components(absolute)
    best_length = -1
    for pattern in input_patterns:
        base = _glob_base(pattern)
        base_parts = _components(os.path.normpath(os.path.join(project_root, base)))
        if len(base_parts) > len(file_parts) or file_parts[: len(base_parts)] != base_parts:
            continue
        best_length = max(best_length, len(base_parts))
    # The parts after the longest base that holds the spec: what relpath would answer (both
    # paths are normalised, and one lies below the other), without its absolute paths again.
    relative = "/".join(file_parts[best_length:]) if best_length >= 0 else ""
    return relative or js_basename(spec_path.replace("\\", "/"))


def input_snapshot_path(
    project_root: Path, spec_path: str, snapshot_dir: str, input_patterns: Sequence[str]
) -> str:
    """``resolveSnapshotPath`` (as-test 1.2.0+), relative to the project root."""
    relative = _ts_to_snap(spec_relative_path(project_root, spec_path, input_patterns))
    return posixpath.normpath(posixpath.join(snapshot_dir.replace("\\", "/") or ".", relative))


def _ts_to_snap(path: str) -> str:
    """``re.sub(r"\\.ts$", ".snap", path)``, whose ``$`` also matches before a last newline."""
    for ending, tail in ((".ts", ""), (".ts\n", "\n")):
        if path.endswith(ending):
            return f"{path[: -len(ending)]}.snap{tail}"
    return path


def snapshot_candidates(
    spec_path: str,
    snapshot_dir: str,
    input_layout: tuple[Path, Sequence[str]] | None = None,
) -> list[str]:
    """Every file ``SnapshotStore.load`` may read for a spec (without duplicate basenames),
    relative to the project root, preferred first: all of them are inputs of the spec's run.
    ``input_layout`` (project root, input patterns): as-test 1.2.0+'s single location."""
    if input_layout is not None:
        return [input_snapshot_path(input_layout[0], spec_path, snapshot_dir, input_layout[1])]
    base = js_basename(spec_path.replace("\\", "/")).removesuffix(".ts")
    legacy = posixpath.normpath(posixpath.join(snapshot_dir or ".", f"{base}.snap.json"))
    return [snapshot_path(spec_path, snapshot_dir), legacy]
