"""Coverage written for tools: as-test's ``coverage.log.json`` and an LCOV ``lcov.info``.

The JSON has the shape as-test 1.0.7 writes (``collectCoverageSummary``, ``JSON.stringify(..., null,
2)``), so anything reading as-test's files reads ours. LCOV is what editors (Coverage Gutters) and
CI services (Codecov, Coveralls) read. It says only what the points honestly tell:

- ``DA`` per source line that holds a point: 1 when any point on the line ran, else 0 (points say
  whether code ran, not how often, so a count is never more than 1);
- ``FN``/``FNDA`` per function: a point of type ``Function``, or the first point on a line that
  declares a function, method or constructor (the transform puts the body's block there);
- no ``BRDA``: a point does not say which branch of a condition it belongs to.

``SF`` paths stay as the transform wrote them: relative to the project root, where tools run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

from astest_tasks.core.guest_text import inert_field
from astest_tasks.core.records import encode
from astest_tasks.coverage.model import CoveragePoint, CoverageSummary, FileCoverage
from astest_tasks.coverage.points import SourceLines, describe_point

LOG_FILE = "coverage.log.json"
LCOV_FILE = "lcov.info"
_FUNCTION_LABELS = frozenset({"Function", "Method", "Constructor"})


def coverage_log_json(summary: CoverageSummary, *, enabled: bool = True) -> str:
    document = {
        "enabled": enabled,
        "showPoints": False,
        "total": summary.total,
        "covered": summary.covered,
        "uncovered": summary.uncovered,
        "percent": _js_number(summary.percent),
        "files": [
            {
                "file": file.file,
                "total": file.total,
                "covered": file.covered,
                "uncovered": file.uncovered,
                "percent": _js_number(file.percent),
                "points": [encode(point) for point in file.points],
            }
            for file in summary.files
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _js_number(value: float) -> int | float:
    # JSON.stringify writes 50, not 50.0: keep whole numbers whole, as as-test's files have them.
    return int(value) if math.isfinite(value) and value.is_integer() else value


def lcov_document(
    summary: CoverageSummary,
    sources: SourceLines,
    test_name: str = "",
    *,
    typed_points: bool = False,  # label points as as-test 1.1.3+ does (points.py)
) -> str:
    lines: list[str] = []
    for file in summary.files:
        lines.append(f"TN:{_lcov_text(test_name)}")
        # The spec's report names the file: a line break in it would end the record and start
        # forged ones, and no tool finds a file with a control character in its name anyway.
        lines.append(f"SF:{inert_field(file.file)}")
        functions = list(function_marks(file, sources, typed_points))
        for line, name, _ in functions:
            lines.append(f"FN:{line},{name}")
        for _, name, executed in functions:
            lines.append(f"FNDA:{int(executed)},{name}")
        lines.append(f"FNF:{len(functions)}")
        lines.append(f"FNH:{sum(1 for _, _, executed in functions if executed)}")
        hits = line_hits(file)
        for line, hit in hits.items():
            lines.append(f"DA:{line},{int(hit)}")
        lines.append(f"LF:{len(hits)}")
        lines.append(f"LH:{sum(1 for hit in hits.values() if hit)}")
        lines.append("end_of_record")
    return "\n".join(lines) + "\n" if lines else ""


def line_hits(file: FileCoverage) -> dict[int, bool]:
    """Whether any point on each line that holds one ran (LCOV's DA, Cobertura's line)."""
    hits: dict[int, bool] = {}
    for point in file.points:  # sorted by line already
        if point.line > 0:  # LCOV lines start at 1; a point without a line cannot be placed
            hits[point.line] = hits.get(point.line, False) or point.executed
    return hits


def function_marks(
    file: FileCoverage, sources: SourceLines, typed_points: bool
) -> Iterator[tuple[int, str, bool]]:
    """(line, unique name, executed) of each function the file's points mark."""
    used: set[str] = set()
    seen_lines: set[int] = set()
    for point in file.points:
        if point.line <= 0 or point.line in seen_lines:
            continue
        info = describe_point(
            sources, point.file, point.line, point.column, point.type, typed_points=typed_points
        )
        if point.type != "Function" and info.label not in _FUNCTION_LABELS:
            continue
        seen_lines.add(point.line)
        name = _function_name(point, info.name, used)
        used.add(name)
        yield point.line, name, point.executed


def _function_name(point: CoveragePoint, name: str, used: set[str]) -> str:
    # FN names key the FNDA records, so each must be unique within the file.
    base = _lcov_text(name) or f"(anonymous {point.line}:{point.column})"
    return base if base not in used else f"{base} ({point.line}:{point.column})"


def _lcov_text(text: str) -> str:
    # A record ends at the newline, and FN/FNDA split on the first comma after the number.
    return inert_field(" ".join(text.split()))
