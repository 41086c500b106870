"""``doit clean``: what our tasks remove, beyond their declared targets.

doit's ``clean: True`` removes a task's targets: the artifacts, build records and results. A
run also leaves its crash record and readable log beside them, and the summary writes the
reports and coverage files; those are ours too and go with them. Snapshots, runner scripts and
configs are the user's and are never listed here.
"""

from __future__ import annotations

import glob
import posixpath
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.actions import RunRequest
from astest_tasks.crash_records import crash_entry
from astest_tasks.spec_logs import spec_log_path
from astest_tasks.summary import JUNIT_FILE, TAP_FILE


def remove_files(project_root: str, paths: Sequence[str], dryrun: bool) -> None:
    """A doit clean action (doit passes ``dryrun``); paths relative to the project root, and
    globs for files whose names are known only after a run."""
    root = Path(project_root)
    for pattern in paths:
        matches = sorted(glob.glob(pattern, root_dir=root)) if _is_glob(pattern) else [pattern]
        for relative in matches:
            path = root / relative
            if path.is_file():
                print(f"removing file '{relative}'")
                if not dryrun:
                    path.unlink()


def _is_glob(pattern: str) -> bool:
    return any(char in pattern for char in "*?[")


def run_leftovers(request: RunRequest) -> list[str]:
    entry = crash_entry(request.crash_dir, request.spec_id, request.mode)
    leftovers = [f"{entry}.json", f"{entry}.log"]
    if request.logs_dir is not None:
        leftovers.append(spec_log_path(request.logs_dir, request.spec_path))
    return leftovers


def summary_leftovers(report_path: str, coverage_dirs: Sequence[str]) -> list[str]:
    folder = posixpath.dirname(report_path)
    reports = [report_path, posixpath.join(folder, JUNIT_FILE), posixpath.join(folder, TAP_FILE)]
    for directory in coverage_dirs:
        reports += [
            posixpath.join(glob.escape(directory), "coverage.*.log.json"),
            posixpath.join(directory, "coverage.log.json"),
            posixpath.join(directory, "lcov.info"),
        ]
    return reports
