"""The Markdown a GitHub Actions step shows on the run's page: totals, failures, the slowest specs
and coverage, appended to the file ``$GITHUB_STEP_SUMMARY`` names.

GitHub creates that file for each step and renders what the step appended, as GitHub Flavoured
Markdown, once the step ends; other steps append their own. So we only ever append (one write of
the whole text, the file opened in append mode: never truncated, never replaced), and every
table cell is made plain text: the characters Markdown or HTML would read as markup (``<``,
``|``, ``*``, a backtick, ...) become numeric character references, so a test named ``<script>``
or ``a|b`` shows as written and cannot break the table, and a control character shows as its
escape (``\\x1b``). GitHub caps a step's summary at 1 MiB;
the failures table stops at ``ROW_CAP`` rows and says how many more there are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from astest_tasks.core.guest_text import inert_field, utf8_file_bytes
from astest_tasks.core.js_values import fixed2
from astest_tasks.model.guest_report import Counts
from astest_tasks.model.results import Status
from astest_tasks.output.console import Shown, format_seconds
from astest_tasks.output.coverage_summary import CoverageOutcome
from astest_tasks.output.durations import slowest_specs
from astest_tasks.output.github_actions import failure_message

ROW_CAP = 50
SLOWEST = 10
CELL_LIMIT = 300  # characters of a cell: a compiler's diagnostics belong in the log
_MARKUP = re.compile(r"[&<>|*_`\\\[\]~#!]")


def cell(text: str) -> str:
    """``text`` as one table cell that Markdown shows as written: whitespace runs as one space,
    and any control character left (ESC, BEL, C1: the page would carry them raw, and so would a
    terminal that shows the file) as its visible escape, ``\\x1b``, as the console shows it."""
    flat = inert_field(" ".join(text.split()))
    if len(flat) > CELL_LIMIT:
        flat = flat[: CELL_LIMIT - 1] + "…"
    return _MARKUP.sub(lambda match: f"&#{ord(match.group())};", flat)


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


def step_summary(
    shown: Sequence[Shown],
    coverage: CoverageOutcome | None,
    threshold_lines: Sequence[str] = (),
) -> str:
    """The whole Markdown text of one run."""
    failed = sum(1 for item in shown if item.result.status is Status.FAILED)
    verdict = f"{failed} of {len(shown)} spec runs failed" if failed else "every spec run passed"
    lines = [f"## astest: {verdict}", "", *_totals(shown)]
    lines += _failures(shown)
    lines += _slowest(shown)
    if coverage is not None:
        lines += _coverage(coverage, threshold_lines)
    return "\n".join(lines) + "\n"


def _totals(shown: Sequence[Shown]) -> list[str]:
    total = Counts.zero()
    files = dict.fromkeys(Status, 0)
    for item in shown:
        total = total + item.result.counts
        files[item.result.status] += 1
    cached = sum(1 for item in shown if item.cached)
    return [
        _row("", "passed", "failed", "skipped"),
        _row("---", "---:", "---:", "---:"),
        _row("files", *(str(files[s]) for s in (Status.PASSED, Status.FAILED, Status.SKIPPED))),
        _row("suites", *map(str, (total.suites_passed, total.suites_failed, total.suites_skipped))),
        _row("tests", *map(str, (total.tests_passed, total.tests_failed, total.tests_skipped))),
        "",
        f"{cached} of {len(shown)} results were cached (their specs and inputs had not changed).",
    ]


def _failures(shown: Sequence[Shown]) -> list[str]:
    failing = [
        (item.result, failure)
        for item in shown
        if item.result.status is Status.FAILED
        for failure in item.result.failures
    ]
    if not failing:
        return []
    lines = ["", "### Failures", "", _row("spec", "mode", "test", "line:col", "failure")]
    lines.append(_row("---", "---", "---", "---", "---"))
    lines += [  # only the rows shown are rendered: a broken suite can fail 100,000 expectations
        _row(
            cell(result.spec),
            cell(result.mode),
            cell(failure.title),
            cell(failure.location),
            cell(failure_message(failure)),
        )
        for result, failure in failing[:ROW_CAP]
    ]
    if len(failing) > ROW_CAP:
        lines += ["", f"{len(failing) - ROW_CAP} more failures: see report.json or junit.xml."]
    return lines


def _slowest(shown: Sequence[Shown]) -> list[str]:
    timed = slowest_specs(shown, SLOWEST)
    if not timed:
        return []
    lines = ["", f"### Slowest {len(timed)} specs", "", _row("spec", "mode", "time")]
    lines.append(_row("---", "---", "---:"))
    lines += [_row(cell(t.name), cell(t.mode), format_seconds(t.seconds)) for t in timed]
    return lines


def _coverage(coverage: CoverageOutcome, threshold_lines: Sequence[str]) -> list[str]:
    lines = ["", "### Coverage", "", _row("", "covered", "points", "percent")]
    lines.append(_row("---", "---:", "---:", "---:"))
    summaries = [("total", coverage.total)]
    summaries += [(f"mode {m.target.mode}", m.summary) for m in coverage.modes]
    for label, summary in summaries:
        percent = f"{fixed2(summary.percent)}%"
        lines.append(_row(cell(label), str(summary.covered), str(summary.total), percent))
    if threshold_lines:
        lines += ["", *(f"- **failed:** {cell(line)}" for line in threshold_lines)]
    return lines


def append_step_summary(path: Path, text: str) -> str:
    """Append ``text`` to GitHub's file, in one write; the problem as a line to print when the
    file cannot be written (the run's verdict does not depend on it)."""
    try:
        with path.open("ab") as file:
            file.write(utf8_file_bytes(text))
    except OSError as error:
        return (
            f"astest: could not append the step summary to {path} ({error.strerror or error}); "
            "fix: leave GITHUB_STEP_SUMMARY as the runner sets it"
        )
    return ""
