"""Crash records of fuzz campaigns, the inputs that failed (as-test's ``fuzz-core``).

The records follow docs/design/host-contract.md §7.

A failing fuzzer leaves ``<crash dir>/<file>.<mode>.<fuzzer>.json`` and ``.log`` with every
failing iteration's seed and the arguments it passed to ``run()``; a campaign that crashed or
sent no report leaves ``<file>.<mode>``. Each record carries the one command that replays it.
"""

from __future__ import annotations

import json
import posixpath
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.json_text import parse_json
from astest_tasks.fuzz.fuzzer_report import FuzzerOutcome

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@frozen
class FuzzCrash:
    file: str
    file_id: str
    mode: str
    seed: int
    error: str
    stdout: str
    stderr: str
    cwd: str
    build_command: str
    repro_command: str


def slug(name: str) -> str:
    """as-test's ``sanitizeEntryName``: lower case, runs of other characters become ``-``."""
    return _NOT_SLUG.sub("-", name.lower()).strip("-") or "fuzzer"


def entry_stem(crash_dir: str, file_id: str, mode: str, fuzzer: str | None = None) -> str:
    # as-test names entries after the basename; the file id keeps nested files apart.
    stem = f"{file_id.replace('/', '__')}.fuzz.{slug(mode)}"
    if fuzzer is not None:
        stem += f".{slug(fuzzer)}"
    return posixpath.join(crash_dir, stem)


def write_fuzz_crash_record(
    project_root: Path, crash_dir: str, crash: FuzzCrash, fuzzer: FuzzerOutcome | None
) -> str:
    """Write the record's two files; returns the ``.log`` path, relative to the project root."""
    stem = entry_stem(crash_dir, crash.file_id, crash.mode, fuzzer.name if fuzzer else None)
    record: dict[str, Any] = {
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "kind": "fuzz",
        "stage": "run",
        "file": crash.file,
        "entryKey": posixpath.basename(stem),
        "mode": crash.mode,
        "seed": fuzzer.failures[0].seed if fuzzer and fuzzer.failures else crash.seed,
        "cwd": crash.cwd,
        "buildCommand": crash.build_command,
        "reproCommand": crash.repro_command,
        "error": crash.error,
        "stdout": crash.stdout,
        "stderr": crash.stderr,
    }
    if fuzzer is not None:
        record["failure"] = vars(fuzzer.assertion)
        record["failures"] = [
            {"run": item.run, "seed": item.seed, "input": _json_or_none(item.input)}
            for item in fuzzer.failures
        ]
    write_text_atomic(project_root / f"{stem}.json", json.dumps(record, indent=2) + "\n")
    write_text_atomic(project_root / f"{stem}.log", _readable(record))
    return f"{stem}.log"


def _json_or_none(text: str) -> object:
    return parse_json(text) if text else None


def _readable(record: dict[str, Any]) -> str:
    lines = [f"{key}: {record[key]}" for key in ("timestamp", "kind", "stage", "file", "mode")]
    lines += [f"seed: {record['seed']}", f"cwd: {record['cwd']}"]
    if record["buildCommand"]:
        lines.append(f"build: {record['buildCommand']}")
    lines += [f"repro: {record['reproCommand']}", "", "[error]", record["error"]]
    failure = record.get("failure")
    if failure:
        lines += ["", "[failure]"]
        lines += [f"{key}: {value}" for key, value in failure.items() if value]
    if record.get("failures"):
        lines += ["", "[fuzz-failures]"]
        for item in record["failures"]:
            lines += [f"run: {item['run']}", f"seed: {item['seed']}"]
            if item["input"] is not None:
                lines.append(f"input: {json.dumps(item['input'])}")
            lines.append("")
    lines += ["", "[stdout]", record["stdout"], "", "[stderr]", record["stderr"]]
    return "\n".join(lines) + "\n"
