"""A spec's result in one mode: the run task's target, and everything the summary shows.

Stored as JSON so cached results can be shown (and later turned into JUnit or TAP) without
re-running anything.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from astest_tasks.atomic import write_text_atomic
from astest_tasks.coverage import ReportCoverage, coverage_from_dict
from astest_tasks.report import (
    Counts,
    FailureDetail,
    Suite,
    count,
    counts_from_dict,
    counts_to_dict,
    failure_from_dict,
    failure_to_dict,
    failures,
    runtime_error_suite,
    suite_from_dict,
    suite_to_dict,
)

RESULT_FORMAT = 1


class Status(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


class Stage(StrEnum):
    BUILD = "build"
    RUN = "run"


@dataclass(frozen=True)
class SnapshotCounts:
    matched: int = 0
    missing: int = 0
    mismatched: int = 0
    missing_keys: tuple[str, ...] = ()
    created: int = 0
    updated: int = 0


@dataclass(frozen=True)
class SpecResult:
    spec: str
    spec_id: str
    mode: str
    target: str
    status: Status
    stage: Stage  # how far the spec got: a build failure never ran
    counts: Counts
    failures: tuple[FailureDetail, ...]
    suites: tuple[Suite, ...]
    duration_s: float
    session: str  # which doit invocation produced it; the summary marks older ones cached
    build_command: str
    error: str = ""  # compiler diagnostics, or why the runtime failed
    warnings: tuple[str, ...] = ()
    # What the run wrote into the project (snapshot files): news for the run that wrote them,
    # so the summary does not repeat it while the result is shown cached.
    written: tuple[str, ...] = ()
    output: str = ""  # the spec's plain stdout
    snapshots: SnapshotCounts = field(default_factory=SnapshotCounts)
    # The report's coverage points, unfiltered: the summary applies the config's rules, so a
    # cached result stays right when they change. None: no report (or a result from before).
    coverage: ReportCoverage | None = None
    # How ``counts`` were made (report.count): as-test 1.4.0+ counts every block as a suite.
    every_block_is_suite: bool = False

    def to_json(self) -> str:
        data = {
            "format": RESULT_FORMAT,
            "spec": self.spec,
            "spec_id": self.spec_id,
            "mode": self.mode,
            "target": self.target,
            "status": self.status.value,
            "stage": self.stage.value,
            "counts": counts_to_dict(self.counts),
            "failures": [failure_to_dict(f) for f in self.failures],
            "suites": [suite_to_dict(s) for s in self.suites],
            "duration_s": self.duration_s,
            "session": self.session,
            "build_command": self.build_command,
            "error": self.error,
            "warnings": list(self.warnings),
            "written": list(self.written),
            "output": self.output,
            "snapshots": {
                "matched": self.snapshots.matched,
                "missing": self.snapshots.missing,
                "mismatched": self.snapshots.mismatched,
                "missing_keys": list(self.snapshots.missing_keys),
                "created": self.snapshots.created,
                "updated": self.snapshots.updated,
            },
            "coverage": self.coverage.to_dict() if self.coverage is not None else None,
            "every_block_is_suite": self.every_block_is_suite,
        }
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> SpecResult:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != RESULT_FORMAT:
            raise ValueError("not a result file of this version")
        snapshots = data.get("snapshots", {})
        return cls(
            spec=str(data["spec"]),
            spec_id=str(data["spec_id"]),
            mode=str(data["mode"]),
            target=str(data["target"]),
            status=Status(data["status"]),
            stage=Stage(data["stage"]),
            counts=counts_from_dict(data["counts"]),
            failures=tuple(failure_from_dict(f) for f in data["failures"]),
            suites=tuple(suite_from_dict(s) for s in data["suites"]),
            duration_s=float(data["duration_s"]),
            session=str(data["session"]),
            build_command=str(data["build_command"]),
            error=str(data.get("error", "")),
            warnings=tuple(str(w) for w in data.get("warnings", [])),
            written=tuple(str(w) for w in data.get("written", [])),
            output=str(data.get("output", "")),
            snapshots=SnapshotCounts(
                matched=int(snapshots.get("matched", 0)),
                missing=int(snapshots.get("missing", 0)),
                mismatched=int(snapshots.get("mismatched", 0)),
                missing_keys=tuple(str(k) for k in snapshots.get("missing_keys", [])),
                created=int(snapshots.get("created", 0)),
                updated=int(snapshots.get("updated", 0)),
            ),
            coverage=coverage_from_dict(data.get("coverage")),
            every_block_is_suite=data.get("every_block_is_suite") is True,
        )


@dataclass(frozen=True)
class SpecIdentity:
    spec: str
    spec_id: str
    mode: str
    target: str


def failure_result(
    who: SpecIdentity,
    session: str,
    stage: Stage,
    title: str,
    details: str,
    build_command: str,
    every_block_is_suite: bool = False,
) -> SpecResult:
    """A spec that failed before it could report: not built, build failed, no result, a bug.

    Counted like as-test's runtime-error suite (one failing suite with one failing test), so the
    failure shows in the totals instead of silently shrinking them.
    """
    suites = (runtime_error_suite(posixpath.basename(who.spec), title, details, "", ""),)
    return SpecResult(
        spec=who.spec,
        spec_id=who.spec_id,
        mode=who.mode,
        target=who.target,
        status=Status.FAILED,
        stage=stage,
        counts=count(suites, every_block_is_suite),
        failures=tuple(failures(suites)),
        suites=suites,
        duration_s=0.0,
        session=session,
        build_command=build_command,
        error=title,
        every_block_is_suite=every_block_is_suite,
    )


def write_result(path: Path, result: SpecResult) -> None:
    write_text_atomic(path, result.to_json())


def read_result(path: Path) -> SpecResult | None:
    """The stored result, or None when it is missing or unreadable (then the spec must re-run)."""
    try:
        return SpecResult.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
