"""Check, before any task runs, that every folder we write into can be written.

Otherwise the first write fails deep inside a task with a traceback, possibly half-way through
the run; one line up front says which folder, from which config field, and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from astest_tasks.config.project_config import ModeSettings
from astest_tasks.core.errors import UserError
from astest_tasks.run.runner_files import RUNNERS_DIR


def check_output_folders(
    project_root: Path, config_path: str, output_root: str, modes: Iterable[ModeSettings]
) -> None:
    for field, folder in _folders(output_root, modes):
        problem = _problem(project_root, Path(folder))
        if problem is not None:
            raise UserError(
                f"{config_path}: {field}: cannot write into {folder}: {problem}; fix: {_FIX}"
            )


_FIX = (
    "move the file out of the way or make the folder writable, or point the field at another folder"
)


def _folders(output_root: str, modes: Iterable[ModeSettings]) -> Iterator[tuple[str, str]]:
    yield "output", output_root
    yield "output (runner scripts)", RUNNERS_DIR
    for mode in modes:
        where = "" if mode.name == "default" else f"modes.{mode.name}."
        yield f"{where}outDir", mode.out_dir
        yield f"{where}snapshotDir", mode.snapshot_dir
        yield f"{where}fuzz.crashDir", mode.crash_dir
        if mode.logs_dir is not None:
            yield f"{where}logs", mode.logs_dir


def _problem(project_root: Path, folder: Path) -> str | None:
    """Why ``folder`` (relative to the project) cannot be created or written, or None."""
    path = folder if folder.is_absolute() else project_root / folder
    # The nearest part that exists decides: it must be a folder we may write into.
    while not path.exists():
        if path.parent == path:
            return None
        path = path.parent
    if not path.is_dir():
        return f"{path} is a file, not a folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{path} is not writable"
    return None
