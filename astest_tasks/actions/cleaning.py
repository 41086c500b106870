"""``doit clean``: what our tasks remove, beyond their declared targets.

doit's ``clean: True`` removes a task's targets: the artifacts, build records and results. A
run also leaves its crash record and readable log beside them (and a result stored under the
previous version's ``.result.json`` name may still be there), a fuzz campaign its crash
records, and the summary writes the reports and coverage files; those are ours too and go with
them. The crash records of specs that no longer exist have no task to clean them: the summary's
clean removes them. Snapshots, runner scripts and configs are the user's and are never listed here.
"""

from __future__ import annotations

import glob
import posixpath
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.core.guest_text import for_stream, inert_field

if TYPE_CHECKING:
    from astest_tasks.run.run_request import RunRequest

# The tasks name the clean actions below with what they clean (a request, a report's path);
# the files are listed when `doit clean` runs, so that making the tasks loads none of the report
# formats', crash records' or logs' modules (issue 40).


def remove_files(project_root: str, patterns: Sequence[str], dryrun: bool) -> None:
    """A doit clean action (doit passes ``dryrun``): glob patterns relative to the project root
    (literal paths escaped with ``glob.escape``); only files are removed."""
    root = Path(project_root)
    for pattern in patterns:
        for relative in sorted(glob.glob(pattern, root_dir=root)):
            path = root / relative
            if path.is_file():
                print(for_stream(f"removing file '{inert_field(relative)}'", sys.stdout))
                if not dryrun:
                    path.unlink()


def remove_orphaned_crash_records(
    project_root: str, crash_dirs: Sequence[str], dryrun: bool
) -> None:
    """A doit clean action: the crash records whose spec file is gone."""
    from astest_tasks.model.crash_records import orphaned_crash_records

    root = Path(project_root)
    orphans = [path for folder in crash_dirs for path in orphaned_crash_records(root, folder)]
    remove_files(project_root, [glob.escape(path) for path in orphans], dryrun)


def remove_run_leftovers(project_root: str, request: RunRequest, dryrun: bool) -> None:
    """A doit clean action: a run's leftovers (``run_leftovers``)."""
    remove_files(project_root, run_leftovers(request), dryrun)


def remove_fuzz_leftovers(
    project_root: str, crash_dir: str, file_id: str, mode: str, dryrun: bool
) -> None:
    """A doit clean action: a fuzz campaign's leftovers (``fuzz_leftovers``)."""
    remove_files(project_root, fuzz_leftovers(crash_dir, file_id, mode), dryrun)


def remove_summary_leftovers(
    project_root: str, report_path: str, coverage_dirs: Sequence[str], dryrun: bool
) -> None:
    """A doit clean action: the summary's reports and coverage files (``summary_leftovers``)."""
    remove_files(project_root, summary_leftovers(report_path, coverage_dirs), dryrun)


def run_leftovers(request: RunRequest) -> list[str]:
    from astest_tasks.model.crash_records import crash_entry
    from astest_tasks.model.results import previous_result_path
    from astest_tasks.model.spec_logs import spec_log_path

    entry = crash_entry(request.crash_dir, request.spec.spec_id, request.spec.mode)
    leftovers = [f"{entry}.json", f"{entry}.log"]
    previous = previous_result_path(request.files.result)
    if previous is not None:  # a result the version before stored, never run since
        leftovers.append(previous)
    if request.logs_dir is not None:
        leftovers.append(spec_log_path(request.logs_dir, request.spec.path))
    return [glob.escape(path) for path in leftovers]


def fuzz_leftovers(crash_dir: str, file_id: str, mode: str) -> list[str]:
    """The campaign's own record and one per failing fuzzer (named after the fuzzer)."""
    from astest_tasks.fuzz.crash_records import entry_stem

    stem = glob.escape(entry_stem(crash_dir, file_id, mode))
    return [f"{stem}.json", f"{stem}.log", f"{stem}.*.json", f"{stem}.*.log"]


def summary_leftovers(report_path: str, coverage_dirs: Sequence[str]) -> list[str]:
    """Every report format's file beside report.json (``report_path``), the report state, and
    the coverage files."""
    from astest_tasks.coverage.cobertura import COBERTURA_FILE
    from astest_tasks.output.formats import report_file_names
    from astest_tasks.output.report_state import STATE_FILE

    folder = posixpath.dirname(report_path)
    names = [*report_file_names().values(), STATE_FILE]
    reports = [posixpath.join(folder, name) for name in names]
    patterns = [glob.escape(path) for path in reports]
    for directory in coverage_dirs:
        escaped = glob.escape(directory)
        patterns += [
            posixpath.join(escaped, "coverage.*.log.json"),
            posixpath.join(escaped, "coverage.log.json"),
            posixpath.join(escaped, "lcov.info"),
            posixpath.join(escaped, COBERTURA_FILE),
        ]
    return patterns
