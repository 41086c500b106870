"""What ``astest --watch`` watches, and which reported file events mean a run is due.

The inputs are read from the tasks doit loaded in the last cycle, so they are exactly what
decides whether a task is up to date: every task's ``file_dep`` (specs, the modules they import
as the build tasks scan them, asconfigs, package manifests, runner scripts), the snapshot files
the run tasks compare by digest, and the user-owned runner scripts (targets of the runner
tasks). Outputs of the tasks (wasm, build records, results) are not inputs: our own writes must
not start another cycle. The config file is always an input, even when it failed to load.

A file event counts only when the file's stamp (mtime and size, or its absence) differs from
the one taken before the cycle that last saw it, so a burst of events for one save, or an
editor touching a file without changing it, runs nothing; a new ``.ts`` file outside the
dependency folders counts too (a new spec, or a module a spec was waiting for).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from astest_tasks.core.frozen import frozen
from astest_tasks.tasks.checks import SnapshotsUnchanged

Stamp = tuple[int, int] | None  # (mtime_ns, size), or None for a missing file

_SKIPPED_FOLDERS = frozenset({"node_modules", ".git"})


def stamp(path: str) -> Stamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


@frozen
class WatchedInputs:
    """The absolute paths of every input of the loaded tasks, and the folders to watch."""

    files: frozenset[str]

    @property
    def folders(self) -> list[str]:
        """The folders holding inputs, watched one level deep: a save by renaming a new file
        over the old one (what many editors do) is seen there, where a watch on the file
        itself would be lost with the old file."""
        return sorted({os.path.dirname(path) for path in self.files if os.path.dirname(path)})

    def stamps(self) -> dict[str, Stamp]:
        return {path: stamp(path) for path in self.files}


def inputs_of_tasks(tasks: Iterable[Any], config_path: str) -> WatchedInputs:
    """The inputs of doit ``Task`` objects (what a run loaded), plus the config file."""
    files: set[str] = {os.path.abspath(config_path)}
    outputs: set[str] = set()
    for task in tasks:
        meta = (getattr(task, "meta", None) or {}).get("astest", {})
        targets = {os.path.abspath(str(t)) for t in task.targets}
        if meta.get("kind") == "runner":
            files |= targets  # the user's runner scripts: made once, then theirs to edit
        else:
            outputs |= targets
        files |= {os.path.abspath(str(dep)) for dep in task.file_dep}
        for check in task.uptodate:
            checker = check[0] if isinstance(check, tuple) else check
            if isinstance(checker, SnapshotsUnchanged):
                files |= {os.path.join(checker.project_root, p) for p in checker.paths}
    return WatchedInputs(files=frozenset(files - outputs))


@dataclass
class ChangeFilter:
    """Decides which reported paths are changes of the inputs since they were last stamped."""

    inputs: WatchedInputs
    seen: dict[str, Stamp] = field(default_factory=dict)

    def changed(self, reported: Iterable[str]) -> list[str]:
        found = []
        for raw in reported:
            path = os.path.abspath(raw)
            if path in self.inputs.files:
                if path not in self.seen or stamp(path) != self.seen[path]:
                    found.append(path)
            elif self._new_source(path):
                found.append(path)
        return sorted(set(found))

    def _new_source(self, path: str) -> bool:
        """A .ts file the tasks do not know yet: a new spec or module, or one deleted (a
        bindings build writes .d.ts files, which are no sources)."""
        if not path.endswith(".ts") or path.endswith(".d.ts"):
            return False
        return not _SKIPPED_FOLDERS.intersection(path.split(os.sep))

    def restamp(self, inputs: WatchedInputs, before: Mapping[str, Stamp]) -> None:
        """After a cycle: the new inputs, stamped as they were before the cycle ran where that
        is known (an edit made while doit was busy still counts), else as they are now."""
        self.inputs = inputs
        self.seen = {path: before[path] if path in before else stamp(path) for path in inputs.files}
