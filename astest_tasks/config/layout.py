"""Where each (mode, spec) pair's files live. One place, so tasks, actions and tests agree."""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.config.discovery import Spec
from astest_tasks.config.project_config import ModeSettings, ProjectConfig
from astest_tasks.core.frozen import frozen
from astest_tasks.model.results import RESULT_SUFFIX, SpecIdentity
from astest_tasks.model.snapshot_paths import snapshot_path


@frozen
class SpecFiles:
    wasm: str
    build_record: str
    result: str
    snapshot: str


def spec_identity(mode: ModeSettings, spec: Spec) -> SpecIdentity:
    return SpecIdentity(path=spec.path, spec_id=spec.spec_id, mode=mode.name, target=mode.target)


def spec_files(mode: ModeSettings, spec: Spec) -> SpecFiles:
    stem = _stem(mode, spec)
    return SpecFiles(
        wasm=f"{stem}.spec.wasm",
        build_record=f"{stem}.build.json",
        result=f"{stem}{RESULT_SUFFIX}",
        snapshot=snapshot_path(spec.path, mode.snapshot_dir),
    )


def spec_result_path(mode: ModeSettings, spec: Spec) -> str:
    """``spec_files(mode, spec).result``, for a caller that needs no other of the files."""
    return f"{_stem(mode, spec)}{RESULT_SUFFIX}"


def _stem(mode: ModeSettings, spec: Spec) -> str:
    """Where a spec's files of a mode go, but for their suffixes."""
    return posixpath.join(mode.out_dir, spec.spec_id)


def output_root(config: ProjectConfig) -> str:
    """Where every file of ours that is not build output goes: the reports, the HTML page, the
    caches and the project's lock. ``.as-test``, or the folder a string ``output`` names; never
    ``outDir``'s parent, which may be the project's root (``"outDir": "./build"``).
    """
    return config.output_root


def doit_paths(root: Path, paths: Sequence[str]) -> list[str]:
    """Paths as doit should record them: relative to its cwd (the dodo's folder).

    Relative, so that a project moved or cloned elsewhere keeps its doit state.
    """
    cwd = os.getcwd()
    root_text = str(root)
    return [_doit_path(root_text, path, cwd) for path in paths]


@functools.lru_cache(maxsize=4096)
def _doit_path(root: str, path: str, cwd: str) -> str:
    """One path of ``doit_paths``, kept: the builds of a call share their imported modules and
    their toolchain's manifests, each normalised once (issue 40). Its answer depends on the
    three texts alone (``_relpath``'s reason for keying by the root's text holds here too)."""
    # The root's part is kept by _relpath, not worked out per path: relpath makes both paths
    # absolute each time. Joining a relative path to the root's relative form and normalising
    # gives relpath's own answer as long as the result stays below the cwd, and so does
    # cutting the cwd off an absolute path inside it (the manifests and asconfigs a build
    # depends on); anything else (a root outside the cwd, a path above it: the packages'
    # manifests of a project below its node_modules) goes through relpath.
    base = _relpath(root, "", cwd)
    inside = cwd if cwd.endswith(os.sep) else cwd + os.sep
    return _below(base, path) or _inside(inside, path) or _relpath(root, path, cwd)


@functools.lru_cache(maxsize=1024)
def _relpath(root: str, path: str, cwd: str) -> str:
    """``os.path.relpath(Path(root) / path, cwd)``, kept: every build of a call asks it again
    for the same manifests and the same root (about 0.2 million instructions a build, issue
    40). ``cwd`` is the current folder the caller read, which relpath would read itself for a
    relative root; the answer depends on nothing else. Keyed by the root's text, not its
    ``Path``: a Windows path equals another spelled in other case, whose answer differs."""
    return os.path.relpath(Path(root) / path if path else root, cwd)


def _below(base: str, path: str) -> str:
    if os.path.isabs(path):
        return ""
    joined = os.path.normpath(os.path.join(base, path))
    return "" if joined == os.pardir or joined.startswith(os.pardir + os.sep) else joined


def _inside(inside: str, path: str) -> str:
    """An absolute ``path`` inside the folder ``inside`` (which ends with a separator),
    relative to it; "" for any other path."""
    if not os.path.isabs(path):
        return ""
    normal = os.path.normpath(path)
    if not normal.startswith(inside):
        return ""
    relative = normal[len(inside) :]
    # "//x" stays "//x" under normpath (POSIX leaves two leading slashes alone); relpath's
    # answer for it differs, so it goes there.
    return "" if relative.startswith(os.sep) else relative
