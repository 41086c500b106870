"""The coverage block of the summary, laid out as as-test 1.0.7's console shows it.

``renderCoverageSummary`` in ``bin/reporters/default.js``: the total with a 12-slot bar, then the
files from least to most covered, at most 8 of them. The percentages are green from 90, yellow
from 75, red below, and only on a terminal (the palette decides).
"""

from __future__ import annotations

from astest_tasks.core.js_values import fixed2
from astest_tasks.coverage.model import CoverageSummary, FileCoverage
from astest_tasks.output.ansi import Fore, Style
from astest_tasks.output.terminal import Palette

BAR_SLOTS = 12
MAX_FILES_LISTED = 8
_PATH_WIDTH = 36


def coverage_lines(summary: CoverageSummary, palette: Palette) -> list[str]:
    lines = [palette.paint("Coverage", Style.BRIGHT)]
    if not summary.files or summary.total <= 0:
        lines.append("  " + palette.dim("No eligible source files were tracked for coverage."))
        return lines
    percent = fixed2(summary.percent)
    missing = "1 point missing" if summary.uncovered == 1 else f"{summary.uncovered} points missing"
    files = "1 file" if len(summary.files) == 1 else f"{len(summary.files)} files"
    detail = f"({summary.covered}/{summary.total} covered, {missing}, {files})"
    total = _paint_percent(percent + "%", summary.percent, palette)
    lines.append(f"  {total} {coverage_bar(summary.percent)} {palette.dim(detail)}")
    lines.append("  " + palette.paint("File Breakdown", Style.BRIGHT))
    ranked = sorted(summary.files, key=_least_covered_first)
    for file in ranked[:MAX_FILES_LISTED]:
        file_percent = fixed2(file.percent).rjust(6) + "%"
        state = f"{file.uncovered} missing" if file.uncovered else "fully covered"
        counts = palette.dim(f"{file.covered}/{file.total} covered, {state}")
        shown = _paint_percent(file_percent, file.percent, palette)
        lines.append(f"    {shown}  {file.file.ljust(_PATH_WIDTH)} {counts}")
    if len(ranked) > MAX_FILES_LISTED:
        lines.append(palette.dim(f"    ... {len(ranked) - MAX_FILES_LISTED} more files"))
    return lines


def coverage_bar(percent: float) -> str:
    clamped = max(0.0, min(100.0, percent))
    # JavaScript's Math.round rounds halves up; Python's round() would round them to even.
    filled = max(0, min(BAR_SLOTS, int(clamped / 100 * BAR_SLOTS + 0.5)))
    return f"[{'=' * filled}{'-' * (BAR_SLOTS - filled)}]"


def _least_covered_first(file: FileCoverage) -> tuple[float, int, str, str]:
    return (file.percent, -file.uncovered, file.file.lower(), file.file)


def _paint_percent(text: str, percent: float, palette: Palette) -> str:
    # as-test compares the two-decimal text, so 89.996 counts as 90.00, green.
    shown = float(fixed2(percent))
    if shown >= 90:
        return palette.paint(text, Fore.LIGHTGREEN_EX)
    return palette.paint(text, Fore.LIGHTYELLOW_EX if shown >= 75 else Fore.LIGHTRED_EX)
