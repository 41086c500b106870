"""``--coverage-fail-under=PCT``: fail the run when coverage is below a percentage.

A plain number is a floor for the total, the coverage the summary prints (every covered mode's
points merged), as coverage.py's ``fail_under`` is a floor for the total of its report: that is
the one figure people and CI services quote. ``mode=PCT`` entries add a floor for one mode's own
points (``80,web=60``, or ``wasi=90`` alone), for a mode that is meant to cover more or less
than the rest. Percentages are per point, as the summary counts them.

A percentage is compared as the summary shows it, two decimals (``toFixed(2)``), so 79.996
shown as 80.00 passes a floor of 80; only 100 needs every point covered, as coverage.py rounds
to its display precision and keeps 100 exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.js_values import fixed2

if TYPE_CHECKING:  # an option's value is parsed for every call; a coverage outcome is a run's
    from astest_tasks.coverage.model import CoverageSummary, FileCoverage
    from astest_tasks.output.coverage_summary import CoverageOutcome

OPTION = "--coverage-fail-under"
FILES_NAMED = 5  # the files furthest below a floor that its failure line names


@frozen
class CoverageFloor:
    mode: str  # "" for the total
    percent: float


@frozen
class CoverageThreshold:
    floors: tuple[CoverageFloor, ...] = ()

    @classmethod
    def parse(cls, text: str) -> CoverageThreshold:
        """``80``, ``80,wasi=90`` or ``wasi=90``; a bad entry raises its one-line error."""
        floors: dict[str, float] = {}
        for entry in (piece.strip() for piece in str(text).split(",")):
            if not entry:
                continue
            mode, _, value = entry.rpartition("=")
            floors[mode.strip()] = _percent(value.strip(), entry)
        return cls(tuple(CoverageFloor(mode, percent) for mode, percent in floors.items()))

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(floor.mode for floor in self.floors if floor.mode)

    def __bool__(self) -> bool:
        return bool(self.floors)


def _percent(value: str, entry: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or not 0 <= number <= 100:
        raise UserError(
            f"{OPTION} {entry!r}: {value!r} is not a percentage from 0 to 100; fix: write e.g. "
            f"`{OPTION}=80` for the total, or `{OPTION}=80,wasi=90` to add a mode's own floor"
        )
    return number


def check_threshold_modes(threshold: CoverageThreshold, covered_modes: Sequence[str]) -> None:
    """Stop the plan when a floor cannot be checked: no mode has coverage, or an entry names a
    mode that has none this run (a typo would otherwise pass every run)."""
    if not threshold:
        return
    if not covered_modes:
        raise UserError(
            f"{OPTION} needs coverage, and no selected mode has it on; fix: turn it on with "
            '`--coverage on` (or the config\'s "coverage"), or drop the option'
        )
    for mode in threshold.modes:
        if mode not in covered_modes:
            known = ", ".join(covered_modes)
            raise UserError(
                f"{OPTION} {mode}=...: mode {mode!r} has no coverage this run (modes with "
                f"coverage: {known}); fix: name one of those, or give a plain number for the total"
            )


def threshold_failures(outcome: CoverageOutcome, threshold: CoverageThreshold) -> list[str]:
    """One line per floor the coverage is below (none when every floor holds)."""
    lines: list[str] = []
    for floor in threshold.floors:
        if floor.mode:
            summary = next(m.summary for m in outcome.modes if m.target.mode == floor.mode)
            what = f"coverage of mode {floor.mode}"
            given = f"{OPTION} {floor.mode}={floor.percent:g}"
        else:
            summary, what, given = outcome.total, "total coverage", f"{OPTION}={floor.percent:g}"
        if is_below(summary.percent, floor.percent):
            lines.append(
                f"{what} {fixed2(summary.percent)}% is below {floor.percent:g}% ({given})"
                f"{_furthest_below(summary, floor.percent)}"
            )
    return lines


def is_below(percent: float, floor: float) -> bool:
    """coverage.py's ``should_fail_under``, at the summary's two decimals."""
    if floor == 100:
        return percent != 100
    return float(fixed2(percent)) < floor


def _furthest_below(summary: CoverageSummary, floor: float) -> str:
    below = sorted(
        (file for file in summary.files if is_below(file.percent, floor)), key=_least_covered
    )
    if not below:
        return ""
    named = ", ".join(
        f"{file.file} {fixed2(file.percent)}% ({file.covered}/{file.total} points)"
        for file in below[:FILES_NAMED]
    )
    more = f" and {len(below) - FILES_NAMED} more" if len(below) > FILES_NAMED else ""
    return f"; furthest below: {named}{more}"


def _least_covered(file: FileCoverage) -> tuple[float, int, str]:
    return (file.percent, -file.uncovered, file.file)
