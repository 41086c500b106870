"""The summary task's coverage: merge the points of every shown result, filter them by each mode's
rules, and write each mode's files into its coverage folder.

It works from the result files, fresh or cached, so a run where every spec is cached still writes
and prints the same coverage. In each mode's coverage folder (``<coverageDir>/<mode>``) it writes
what ``ast test`` 1.0.7 writes there, ``coverage.<spec file name>.log.json`` for each spec, plus
the mode's merged ``coverage.log.json`` (the name ``ast run`` uses for its merged file) and
``lcov.info``. The total across modes merges the modes' filtered points the way
``aggregateRunResults`` does.
"""

from __future__ import annotations

import posixpath
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import field
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.lazy_pattern import LazyPattern
from astest_tasks.core.version import __version__
from astest_tasks.coverage.model import CoveragePoint, CoverageSummary, FileCoverage, merge_points
from astest_tasks.coverage.points import SourceLines
from astest_tasks.coverage.rules import CoverageRules, is_ignored_file, is_ignored_point
from astest_tasks.model.results import SpecResult

_UNSAFE_FILE_CHARACTERS = LazyPattern(r"[^a-zA-Z0-9._-]")


@frozen
class CoverageTarget:
    """A mode whose specs were built with coverage: where its files go, and which points count."""

    mode: str
    directory: str | None  # relative to the project root; None when coverageDir is "none"
    rules: CoverageRules = field(default_factory=CoverageRules)


@frozen
class ModeCoverage:
    target: CoverageTarget
    summary: CoverageSummary
    per_spec: tuple[tuple[SpecResult, CoverageSummary], ...]


@frozen
class CoverageOutcome:
    total: CoverageSummary  # every covered mode's counted points, merged
    modes: tuple[ModeCoverage, ...]


def collect_coverage(
    root: Path, targets: Sequence[CoverageTarget], results: Sequence[SpecResult]
) -> CoverageOutcome | None:
    """None when no selected mode has coverage on."""
    if not targets:
        return None
    sources = SourceLines(root)
    modes = tuple(_mode_coverage(target, results, sources) for target in targets)
    total = merge_points((_points(mode.summary) for mode in modes), _keep_all)
    return CoverageOutcome(total=total, modes=modes)


def _mode_coverage(
    target: CoverageTarget, results: Sequence[SpecResult], sources: SourceLines
) -> ModeCoverage:
    rules = target.rules

    def counts(point: CoveragePoint) -> bool:
        return not is_ignored_file(point.file, rules) and not is_ignored_point(
            point, rules, sources
        )

    own = [result for result in results if result.mode == target.mode]
    groups = [result.coverage.points for result in own if result.coverage is not None]
    per_spec = tuple(
        (result, merge_points([result.coverage.points], counts))
        for result in own
        if result.coverage is not None
    )
    return ModeCoverage(target, merge_points(groups, counts), per_spec)


def _points(summary: CoverageSummary) -> list[CoveragePoint]:
    return [point for file in summary.files for point in file.points]


def _keep_all(point: CoveragePoint) -> bool:
    return True


def write_coverage_files(root: Path, outcome: CoverageOutcome) -> list[str]:
    """Write each mode's files (as-test writes none for a mode without counted points); returns
    the paths written, relative to the project root."""
    # Only a run with coverage writes these: their modules load with it (issue 40).
    from astest_tasks.coverage.cobertura import COBERTURA_FILE, cobertura_document
    from astest_tasks.coverage.files import LCOV_FILE, LOG_FILE, coverage_log_json, lcov_document

    written: list[str] = []
    sources = SourceLines(root)
    for mode in outcome.modes:
        directory = mode.target.directory
        if directory is None or not mode.summary.files:
            continue
        keys = _artifact_keys([result.spec for result, _ in mode.per_spec])
        for result, summary in mode.per_spec:
            if summary.files:
                name = f"coverage.{keys[result.spec]}.log.json"
                written.append(_write(root, directory, name, coverage_log_json(summary)))
        written.append(_write(root, directory, LOG_FILE, coverage_log_json(mode.summary)))
        typed = mode.target.rules.typed_points
        lcov = lcov_document(mode.summary, sources, test_name=mode.target.mode, typed_points=typed)
        written.append(_write(root, directory, LCOV_FILE, lcov))
        cobertura = cobertura_document(
            mode.summary,
            sources,
            source_root=root.resolve().as_posix(),
            version=f"astest-tasks {__version__}",
            timestamp=int(time.time()),
            typed_points=typed,
        )
        written.append(_write(root, directory, COBERTURA_FILE, cobertura))
    return written


def _write(root: Path, directory: str, name: str, text: str) -> str:
    path = posixpath.join(directory, name)
    write_text_atomic(root / path, text)
    return path


def _artifact_keys(specs: Sequence[str]) -> dict[str, str]:
    """as-test's per-spec file key (``resolvePerFileArtifactKey``): the spec's file name, with its
    folder added when two selected specs share a file name."""
    names = Counter(posixpath.basename(spec) for spec in specs)
    keys: dict[str, str] = {}
    for spec in specs:
        base = posixpath.basename(spec)
        raw = base
        if names[base] > 1:
            folder = posixpath.dirname(posixpath.normpath(spec))
            disambiguator = re.sub(r"/+", "__", folder) if folder not in ("", ".") else ""
            disambiguator = _UNSAFE_FILE_CHARACTERS.sub("_", disambiguator).strip("_")
            if disambiguator:
                raw = f"{base}.{disambiguator}"
        keys[spec] = _UNSAFE_FILE_CHARACTERS.sub("_", raw)
    return keys


def coverage_report_json(outcome: CoverageOutcome) -> dict[str, object]:
    """The coverage part of report.json: totals overall, per mode and per file."""
    return {
        **_numbers(outcome.total),
        "files": [{"file": file.file, **_numbers(file)} for file in outcome.total.files],
        "modes": {
            mode.target.mode: {**_numbers(mode.summary), "directory": mode.target.directory}
            for mode in outcome.modes
        },
    }


def _numbers(item: CoverageSummary | FileCoverage) -> dict[str, object]:
    return {
        "total": item.total,
        "covered": item.covered,
        "uncovered": item.uncovered,
        "percent": round(item.percent, 4),
    }
