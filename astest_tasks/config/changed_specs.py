"""``--changed[=REF]``: which specs a set of changed files affects.

A (mode, spec) pair is selected when a file that can change its result differs from REF: the
spec itself, a module it imports (transitively, or one it imports that no longer exists), its
asconfig, its snapshot file, its runner script, or a file its build arguments name
(``--transform ./transform/index.js``). Some files can change every result: the as-test config,
the package manifests and lock files (they pin asc and as-test), ``.env`` files, and the doit
configuration (limits, pinned modes). When unsure, select: running a spec too many costs
seconds, skipping one that broke lets a failure through review.

Paths are posix and relative to the project root, as git_changes.py gives them.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

from astest_tasks.config.discovery import Spec
from astest_tasks.core.frozen import frozen

# Files at the project root, or in a folder above it (a monorepo's root), whose change can alter
# every spec's build or run.
PROJECT_WIDE_NAMES = frozenset(
    {
        "package.json",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lock",
        "bun.lockb",
        "pyproject.toml",  # [tool.doit.tasks.astest]: limits, modes, coverage
        "doit.cfg",
        "dodo.py",
    }
)


@frozen
class SpecInputs:
    """The files whose content decides one (mode, spec) pair's result."""

    mode: str
    spec: Spec
    files: frozenset[str]
    folders: frozenset[str] = frozenset()  # a build argument naming a folder: any file in it

    def affected_by(self, changed: frozenset[str]) -> bool:
        if not self.files.isdisjoint(changed):
            return True
        # git names a submodule whose checkout moved by its folder: every file in it may differ.
        if any(folder in changed for path in self.files for folder in _parents(path)):
            return True
        return any(_inside(path, folder) for folder in self.folders for path in changed)


@frozen
class ChangedSelection:
    ref: str
    selected: frozenset[tuple[str, str]]  # (mode, spec path)
    specs_total: int  # distinct spec files among the candidates
    everything_because: str = ""  # a changed file every spec depends on

    def keeps(self, mode: str, spec: Spec) -> bool:
        return (mode, spec.path) in self.selected

    @property
    def note(self) -> str:
        """One line for the summary: what --changed chose, and why."""
        option = f"--changed={self.ref}"
        chosen = len({path for _, path in self.selected})
        if not chosen:
            return (
                f"no spec changed since {self.ref} (nor any file they depend on): nothing to "
                f"run ({option})"
            )
        if self.everything_because:
            return (
                f"{option}: {self.everything_because} differs from {self.ref}, and every spec "
                f"depends on it: all {self.specs_total} run"
            )
        return (
            f"{option}: {chosen} of {self.specs_total} specs differ from {self.ref}, or depend "
            "on a file that does"
        )


def select_changed(
    candidates: Sequence[SpecInputs], changed: frozenset[str], ref: str, config_path: str
) -> ChangedSelection:
    total = len({inputs.spec.path for inputs in candidates})
    everything = project_wide_change(changed, config_path)
    chosen = [
        inputs for inputs in candidates if everything is not None or inputs.affected_by(changed)
    ]
    return ChangedSelection(
        ref=ref,
        selected=frozenset((inputs.mode, inputs.spec.path) for inputs in chosen),
        specs_total=total,
        everything_because=everything or "",
    )


def project_wide_change(changed: Iterable[str], config_path: str) -> str | None:
    """The first changed file (in sorted order) that every spec depends on, or None."""
    config = posixpath.normpath(config_path.replace("\\", "/"))
    for path in sorted(changed):
        name = posixpath.basename(path)
        if path == config:
            return path
        if name in PROJECT_WIDE_NAMES and _at_root_or_above(path):
            return path
        # An "env" file the config names (anywhere in the project, or beside it above).
        in_project = not path.startswith("../") or _at_root_or_above(path)
        if in_project and (name == ".env" or name.startswith(".env.")):
            return path
    return None


def project_paths(root: Path, paths: Iterable[str]) -> frozenset[str]:
    """Task paths (relative to the root, or absolute) as posix paths relative to the root."""
    relative: set[str] = set()
    for path in paths:
        if os.path.isabs(path):
            path = os.path.relpath(path, root)
        relative.add(posixpath.normpath(path.replace("\\", "/")))
    return frozenset(relative)


def argument_paths(root: Path, arguments: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The files and the folders that build arguments or a build command name, as they exist
    now (``--transform ./transform/index.js``, ``--lib=./lib``): a change in them can change
    every build of the mode."""
    files: set[str] = set()
    folders: set[str] = set()
    for argument in arguments:
        try:
            words = shlex.split(argument)
        except ValueError:
            words = argument.split()
        for word in words:
            candidate = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            if not candidate or candidate.startswith("-"):
                continue
            path = root / candidate
            normal = next(iter(project_paths(root, [str(path)])))
            if normal in (".", ""):
                continue  # the project itself: would select every spec on any edit
            if path.is_file():
                files.add(normal)
            elif path.is_dir():
                folders.add(normal)
    return frozenset(files), frozenset(folders)


def _at_root_or_above(path: str) -> bool:
    return all(part == ".." for part in path.split("/")[:-1])


def _parents(path: str) -> list[str]:
    """``a/b/c.ts`` -> ``a/b``, ``a``; the ``..`` steps of a path outside the project are not
    folders of their own."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[:end]) for end in range(len(parts), 0, -1) if parts[end - 1] != ".."]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
