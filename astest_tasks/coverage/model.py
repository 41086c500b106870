"""Coverage points as a spec reports them, and their totals once merged across specs and modes.

An as-test 1.0.7 report carries ``"coverage": {total, covered, uncovered, percent, points: [{hash,
file, line, column, type, executed}]}`` (``CoverageReport.serialize`` in ``assembly/index.ts``); a
build without coverage sends the same object with no points. We read it as loosely as the CLI's
``normalizeCoverage`` does and never fail a spec over it: a malformed block is no coverage.

Merging follows ``collectCoverageSummary``/``aggregateRunResults`` in the CLI: points are keyed by
``file::hash``, the first one seen keeps its fields, and ``executed`` is OR-ed over every report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import field, replace

from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import decode_guest_utf8
from astest_tasks.core.json_text import finite_number, parse_json
from astest_tasks.core.records import stored_as


@frozen
class CoveragePoint:
    hash: str
    file: str
    line: int
    column: int
    type: str  # "Function", "Expression" or "Block"
    executed: bool
    # as-test 1.8's detailed points (asked for under --show-coverage): the enclosing point, the
    # scope it opens ("Function", "Method", ...) and its nesting depth, for the gap tree.
    # Stored only when set (core/records.stored_as), under 1.8's keys, so plain points keep
    # their size in result files and coverage.log.json.
    parent_hash: str = field(default="", metadata=stored_as("parentHash", omit_default=True))
    scope_kind: str = field(default="", metadata=stored_as("scopeKind", omit_default=True))
    scope_name: str = field(default="", metadata=stored_as("scopeName", omit_default=True))
    depth: int = field(default=0, metadata=stored_as(omit_default=True))

    @property
    def key(self) -> str:
        return f"{self.file}::{self.hash}"


@frozen
class ReportCoverage:
    """One spec's ``report.coverage``: every point its wasm registered, unfiltered."""

    total: int
    covered: int
    uncovered: int
    percent: float
    points: tuple[CoveragePoint, ...]


def coverage_from_payload(payload: bytes | None) -> ReportCoverage | None:
    """The ``coverage`` block of a report payload; None when there is no readable report."""
    if payload is None:
        return None
    try:
        document = parse_json(decode_guest_utf8(payload))
    except ValueError:
        return None  # the suites reader reports the broken payload; coverage just stays empty
    if not isinstance(document, dict):
        return None
    return coverage_from_dict(document.get("coverage"))


def coverage_from_dict(value: object) -> ReportCoverage | None:
    """``normalizeCoverage``: numbers default to 0, covered to total - uncovered, points without a
    file are dropped. A result file's coverage is ours, and core/records reads it strictly."""
    if not isinstance(value, dict):
        return None
    total = _int(value.get("total"))
    uncovered = _int(value.get("uncovered"))
    covered_raw = value.get("covered")
    covered = _int(covered_raw) if covered_raw is not None else max(total - uncovered, 0)
    percent_raw = value.get("percent")
    percent = (
        _float(percent_raw)
        if percent_raw is not None
        else (covered * 100 / total if total else 100.0)
    )
    raw_points = value.get("points")
    points = tuple(
        point
        for point in (
            _point(entry) for entry in (raw_points if isinstance(raw_points, list) else [])
        )
        if point is not None and point.file
    )
    return ReportCoverage(total, covered, uncovered, percent, points)


def _point(value: object) -> CoveragePoint | None:
    if not isinstance(value, dict):
        return None
    return CoveragePoint(
        hash=_text(value.get("hash")),
        file=_text(value.get("file")),
        line=_int(value.get("line")),
        column=_int(value.get("column")),
        type=_text(value.get("type")),
        executed=_truthy(value.get("executed")),
        parent_hash=_text(value.get("parentHash")),
        scope_kind=_text(value.get("scopeKind")),
        scope_name=_text(value.get("scopeName")),
        depth=_int(value.get("depth")),
    )


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _float(value: object) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        number = finite_number(value)  # an integer past any float, NaN: none
        return 0.0 if number is None else number
    if isinstance(value, str):
        try:
            number = float(value.strip() or "0")
        except ValueError:
            return 0.0
        return number if math.isfinite(number) else 0.0
    return 0.0


def _int(value: object) -> int:
    return int(_float(value))


def _truthy(value: object) -> bool:
    # Boolean(x) in JavaScript, for the values JSON can hold ([] and {} are truthy there).
    if isinstance(value, str):
        return value != ""
    if isinstance(value, int | float):
        return value != 0
    return value is not None and value is not False


# -- merged totals ---------------------------------------------------------------------------
class _Counts:
    """``uncovered`` and ``percent``, derived from ``total`` and ``covered``."""

    @property
    def total(self) -> int:
        raise NotImplementedError

    @property
    def covered(self) -> int:
        raise NotImplementedError

    @property
    def uncovered(self) -> int:
        return self.total - self.covered

    @property
    def percent(self) -> float:
        return percent_of(self.covered, self.total)


@frozen
class FileCoverage(_Counts):
    file: str
    points: tuple[CoveragePoint, ...]  # sorted by line, column, type, hash

    @property
    def total(self) -> int:
        return len(self.points)

    @property
    def covered(self) -> int:
        return sum(1 for point in self.points if point.executed)


@frozen
class CoverageSummary(_Counts):
    """Counted points per source file, files sorted by path."""

    files: tuple[FileCoverage, ...]

    @property
    def total(self) -> int:
        return sum(file.total for file in self.files)

    @property
    def covered(self) -> int:
        return sum(file.covered for file in self.files)


def percent_of(covered: int, total: int) -> float:
    return covered * 100 / total if total else 100.0


def merge_points(
    groups: Iterable[Sequence[CoveragePoint]], keep: Callable[[CoveragePoint], bool]
) -> CoverageSummary:
    """Kept points of every group, de-duplicated by ``file::hash`` with ``executed`` OR-ed."""
    unique: dict[str, CoveragePoint] = {}
    decided: dict[str, bool] = {}  # a point's key -> whether ``keep`` accepted it
    for group in groups:
        for point in group:
            key = point.key
            if key not in decided:
                decided[key] = keep(point)
            if not decided[key]:
                continue
            seen = unique.get(key)
            if seen is None:
                unique[key] = point
            elif point.executed and not seen.executed:
                unique[key] = replace(seen, executed=True)
    by_file: dict[str, list[CoveragePoint]] = {}
    for point in unique.values():
        by_file.setdefault(point.file, []).append(point)
    return CoverageSummary(
        files=tuple(
            FileCoverage(file, tuple(sorted(by_file[file], key=_point_order)))
            for file in sorted(by_file, key=_path_order)
        )
    )


def _point_order(point: CoveragePoint) -> tuple[int, int, str, str]:
    return (point.line, point.column, point.type, point.hash)


def _path_order(path: str) -> tuple[str, str]:
    # as-test sorts with localeCompare, which ignores case first; paths rarely differ only there.
    return (path.lower(), path)
