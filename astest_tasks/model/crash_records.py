"""Crash records: what a spec that could not report left behind, on disk.

Their files and fields are docs/design/host-contract.md §7.

A build failure, a crash, a trap, a timeout or an unreadable report leaves ``<entry>.json``
(as-test's fields) and ``<entry>.log`` (the same, readable) in the mode's crash folder, with the
commands that reproduce it, so a CI failure can be read after the run. Assertion failures are
ordinary results and leave none. A record describes the last run of its spec and mode: the next
run that needs none removes it, and ``doit clean`` removes those whose spec file is gone.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
from collections.abc import Iterator
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.core.records import REJECT, decode, encode, stored_as
from astest_tasks.core.state_files import read_state_file
from astest_tasks.model.results import SpecResult, Stage


@frozen
class CrashRecord:
    """A record's ``.json``: as-test's fields, in its order and under its keys."""

    timestamp: str
    kind: str  # "test" (a fuzz campaign's records are fuzz/crash_records.py's)
    stage: str
    file: str
    mode: str
    cwd: str
    build_command: str = field(metadata=stored_as("buildCommand"))
    run_command: str = field(metadata=stored_as("runCommand"))
    repro_command: str = field(metadata=stored_as("reproCommand"))
    error: str
    stdout: str


@frozen
class CrashCommands:
    cwd: str
    build: str
    run: str  # how to run this spec again
    repro: str  # the one command to reproduce the failure


def crash_entry(crash_dir: str, spec_id: str, mode: str) -> str:
    """``<crash_dir>/<spec id>.spec`` as as-test names it; other modes than ``default`` add
    ``.<mode>``, because named modes share one crash folder and must not overwrite each other."""
    name = f"{spec_id}.spec" if mode == "default" else f"{spec_id}.spec.{mode}"
    return posixpath.join(crash_dir, name)


def write_crash_record(
    project_root: Path, crash_dir: str, result: SpecResult, commands: CrashCommands
) -> str:
    """Write the record's two files; returns the ``.log`` path, relative to the project root."""
    entry = crash_entry(crash_dir, result.spec_id, result.mode)
    details = result.failures[0].message if result.failures else ""
    record = CrashRecord(
        timestamp=datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        kind="test",
        stage="build" if result.stage is Stage.BUILD else "run",
        file=result.spec,
        mode=result.mode,
        cwd=commands.cwd,
        build_command=commands.build,
        run_command=commands.run,
        repro_command=commands.repro,
        error="\n".join(part for part in (result.error, details) if part),
        stdout=result.output,
    )
    write_text_atomic(project_root / f"{entry}.json", json.dumps(encode(record), indent=2) + "\n")
    write_text_atomic(project_root / f"{entry}.log", _readable(record))
    return f"{entry}.log"


def remove_crash_record(project_root: Path, crash_dir: str, spec_id: str, mode: str) -> None:
    """Drop the record of this spec and mode (if any): a run that needed none replaced it."""
    entry = crash_entry(crash_dir, spec_id, mode)
    for suffix in (".json", ".log"):
        with contextlib.suppress(OSError):  # absent, or not ours to remove: never fail the spec
            (project_root / f"{entry}{suffix}").unlink()


def orphaned_crash_records(project_root: Path, crash_dir: str) -> Iterator[str]:
    """Our records in ``crash_dir`` whose spec file no longer exists, as paths relative to the
    project root. Ours means: a ``.json`` with exactly our fields, ``kind`` "test", named as
    ``crash_entry`` names its mode's record; its ``.log`` only if it opens with the same record.
    Anything else in the folder (fuzz records, a user's notes) is left alone."""
    folder = project_root / crash_dir
    for path in sorted(folder.rglob("*.json")):
        record = _test_record(path)
        if record is None or (project_root / record.file).exists():
            continue
        yield path.relative_to(project_root).as_posix()
        log = path.with_suffix(".log")
        if _is_log_of(log, record):
            yield log.relative_to(project_root).as_posix()


def _is_log_of(log: Path, record: CrashRecord) -> bool:
    text = read_state_file(log)
    try:
        readable = None if text is None else text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return readable is not None and readable.startswith(_readable(record).split("\n[error]", 1)[0])


def _test_record(path: Path) -> CrashRecord | None:
    text = read_state_file(path)
    if text is None:
        return None
    try:
        # Exactly our fields, each a string: anything more or less is not ours.
        record = decode(CrashRecord, parse_json(text.decode("utf-8")), unknown=REJECT)
    except ValueError:  # UnicodeDecodeError and RecordError are ValueErrors
        return None
    if record.kind != "test":
        return None
    mode = record.mode
    expected_suffix = ".spec.json" if mode == "default" else f".spec.{mode}.json"
    return record if path.name.endswith(expected_suffix) else None


def _readable(record: CrashRecord) -> str:
    lines = [
        f"timestamp: {record.timestamp}",
        f"kind: {record.kind}",
        f"stage: {record.stage}",
        f"file: {record.file}",
        f"mode: {record.mode}",
        f"cwd: {record.cwd}",
    ]
    commands = (
        ("build", record.build_command),
        ("run", record.run_command),
        ("repro", record.repro_command),
    )
    for label, command in commands:
        if command:
            lines.append(f"{label}: {command}")
    lines += ["", "[error]", record.error]
    if record.stdout:
        lines += ["", "[stdout]", record.stdout]
    return "\n".join(lines) + "\n"
