"""Readable per-spec logs (docs/design/host-contract.md §8.4): a failure can be read after the run.

``<logs>/<spec path below __tests__, .ts -> .log>`` (``logs`` already carries the mode), written
after every run unless the config says ``"logs": "none"``: the verdict, counts, every failure
with its values, the spec's own ``log()`` lines and what it printed.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.model.guest_report import Suite
from astest_tasks.model.results import SpecResult, Status
from astest_tasks.model.snapshot_paths import spec_path_below_tests

_VERDICT = {Status.PASSED: "PASS", Status.FAILED: "FAIL", Status.SKIPPED: "SKIP"}


def spec_log_path(logs_dir: str, spec_path: str) -> str:
    relative = spec_path_below_tests(spec_path)
    stem = relative[: -len(".ts")] if relative.endswith(".ts") else relative
    return posixpath.normpath(posixpath.join(logs_dir, f"{stem}.log"))


def write_spec_log(project_root: Path, logs_dir: str, result: SpecResult, run_command: str) -> str:
    path = spec_log_path(logs_dir, result.spec)
    write_text_atomic(project_root / path, readable_log(result, run_command))
    return path


def readable_log(result: SpecResult, run_command: str) -> str:
    counts = result.counts
    snapshots = result.snapshots
    lines = [
        f"Mode: {result.mode}",
        f"Build: {result.build_command}",
        f"Run: {run_command}",
        "",
        f"{_VERDICT[result.status]}  {result.spec}",
        "",
        f"Snapshots: {snapshots.matched} matched, {snapshots.created} created, "
        f"{snapshots.updated} updated, {snapshots.missing + snapshots.mismatched} failed",
        "",
        f"Suites: {counts.suites_passed} passed, {counts.suites_failed} failed, "
        f"{counts.suites_skipped} skipped",
        f"Tests: {counts.tests_passed} passed, {counts.tests_failed} failed, "
        f"{counts.tests_skipped} skipped",
        f"Time: {result.duration_s * 1000:.2f} ms",
    ]
    if result.failures:
        lines += ["", "Failures:"]
        for failure in result.failures:
            where = f" ({result.spec}:{failure.location})" if failure.location else ""
            lines.append(f"FAIL  {failure.title}{where}")
            if failure.matcher:
                lines.append(f"  Matcher: {failure.matcher}")
            if failure.expected is not None or failure.actual is not None:
                lines.append(f"  Expected: {failure.expected}")
                lines.append(f"  Received: {failure.actual}")
            if failure.message:
                lines.append(f"  Message: {failure.message}")
    logged = list(_logs(result.suites, ()))
    lines += ["", "Log:", *logged] if logged else []
    if result.output:
        lines += ["", "Output:", result.output.rstrip("\n")]
    return "\n".join(lines) + "\n"


def _logs(suites: Sequence[Suite], path: tuple[str, ...]) -> Iterator[str]:
    for suite in suites:
        suite_path = (*path, suite.description)
        for text in suite.logs:
            yield f"[{' > '.join(suite_path)}] {text}"
        yield from _logs(suite.suites, suite_path)
