"""Whether a spec's build can be run, as its run (or fuzz) action finds it: the build record
is missing (the build never ran) or says the compile failed (with the compiler's message and the
command that reproduces it). One place, so a spec and a fuzz target say it in the same words."""

from __future__ import annotations

import shlex
from pathlib import Path

from astest_tasks.build.compiler import BuildRecord, read_build_record
from astest_tasks.core.frozen import frozen


@frozen
class UnusableBuild:
    error: str  # "not built" or "build failed"
    details: str  # what to show: the hint to build it, or the compiler's message and repro
    command: str  # the compile command that reproduces a failure ("" when there is none)


def check_build(root: Path, record_path: str, build_hint: str) -> BuildRecord | UnusableBuild:
    """The build record when its build succeeded, else why not. ``build_hint`` is the command
    that builds it (``doit astest:build:wasi:math``)."""
    record = read_build_record(root, record_path)
    if record is None:
        return UnusableBuild(
            "not built", f"no build record at {record_path}; build it with `{build_hint}`", ""
        )
    if not record.ok:
        details = record.diagnostics
        if record.command:
            details += f"\n\nreproduce with:\n  cd {shlex.quote(str(root))} && {record.command}"
        return UnusableBuild("build failed", details, record.command)
    return record
