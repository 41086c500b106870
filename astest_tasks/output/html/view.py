"""The HTML report's data, made from the stored results only: the spec x mode matrix, the
failures, every spec's tests (test_list.py), the slowest specs against their last runs,
coverage with its source, fuzz campaigns.

Everything here is plain text and numbers (the templates escape all of it). A big suite must not
make a big page: what grows with the number of failures, tests or source lines is capped, and so is
the length of every name and log line a spec (or a stored record) hands us; the page says how
much it left out and where the rest is (report.json, the coverage files).
"""

from __future__ import annotations

import shlex
import statistics
from collections.abc import Sequence

from astest_tasks.core.frozen import frozen
from astest_tasks.coverage.points import SourceLines
from astest_tasks.fuzz.results import FuzzResult
from astest_tasks.fuzz.runs import replay_command
from astest_tasks.model.guest_report import Counts, FailureDetail
from astest_tasks.model.results import SpecResult, Stage, Status
from astest_tasks.output.console import Shown, format_seconds
from astest_tasks.output.coverage_summary import CoverageOutcome
from astest_tasks.output.duration_history import History, key_of
from astest_tasks.output.fuzz_summary import MAX_SEEDS_SHOWN, ShownFuzz, campaign_detail
from astest_tasks.output.html.charts import Chart, duration_chart
from astest_tasks.output.html.source_view import (
    FileSource,
    PointedLine,
    file_source,
    pointed_line,
)
from astest_tasks.output.html.test_list import SpecTests, spec_anchors, spec_tests
from astest_tasks.output.latest_log import lines_of_whole_json
from astest_tasks.output.report_input import ReportInput
from astest_tasks.output.text_caps import MAX_LINE, MAX_TEXT, cut, cut_name, first_part, last_part

MAX_FAILURES = 200  # failing expectations shown in all; report.json holds every one
MAX_FAILURES_PER_SPEC = 20
MAX_LOG_LINES = 40  # a failing spec's last log() lines
MAX_SLOWEST = 10
MAX_SOURCE_LINES = 20_000  # coverage source shown in all; a file past it lists its gaps only
MAX_GAPS_PER_FILE = 200


@frozen
class Cell:
    status: str  # passed, failed, skipped
    counts: str
    duration: str
    cached: bool
    anchor: str  # the failure's id on the page, "" when it has none


@frozen
class Row:
    spec: str
    anchor: str  # the id of the spec's section of tests
    cells: tuple[Cell | None, ...]  # one per mode, None where the spec is not in that mode


@frozen
class FailureView:
    title: str  # the test's path: "describe > test#N"
    where: str  # file:line:col, or the file alone
    matcher: str
    expected: str | None
    received: str | None
    message: str
    source: PointedLine | None


@frozen
class SpecFailures:
    anchor: str
    spec: str
    mode: str
    build_failed: bool
    failures: tuple[FailureView, ...]
    more: int  # failing expectations left out
    log_lines: tuple[str, ...]
    output: str
    repro: str


@frozen
class SlowSpec:
    spec: str
    mode: str
    duration: str
    usual: str  # the median of its earlier runs, "" when it has none
    chart: Chart | None


@frozen
class Totals:
    label: str
    covered: int
    total: int
    percent: str


@frozen
class CoverageFile:
    totals: Totals
    source: FileSource
    gaps: tuple[str, ...]  # "line:col Type" of every uncovered point (capped)


@frozen
class CoverageView:
    modes: tuple[Totals, ...]
    total: Totals
    files: tuple[CoverageFile, ...]


@frozen
class FailedFuzzer:
    name: str
    message: str
    expected: str
    received: str
    runs: str
    seeds: str
    first_input: str
    repro: str


@frozen
class FuzzView:
    file: str
    mode: str
    passed: bool
    detail: str
    seed: str
    duration: str
    cached: bool
    error: str
    replay: str
    fuzzers: tuple[FailedFuzzer, ...]


@frozen
class Page:
    files: dict[str, int]
    tests: Counts
    cached: int
    modes: tuple[str, ...]
    rows: tuple[Row, ...]
    failures: tuple[SpecFailures, ...]
    failures_left_out: int
    spec_tests: tuple[SpecTests, ...]
    tests_left_out: int
    slowest: tuple[SlowSpec, ...]
    coverage: CoverageView | None
    fuzz: tuple[FuzzView, ...]
    shard: str


def page_of(reports: ReportInput) -> Page:
    shown = list(reports.shown)
    root = reports.context.project_root
    sources = SourceLines(root) if root is not None else None
    failures, left_out = _failures(reports, sources)
    # Keyed by the whole (mode, spec), as the rows are: two names that differ only past the
    # displayed cut are two specs, and the failing one must keep its own row and link.
    keys = _failing_keys(reports)
    anchors = {key: failure.anchor for key, failure in zip(keys, failures, strict=True)}
    tests = Counts.zero()
    for item in shown:
        tests = tests + item.result.counts
    shard = reports.shard
    listed, tests_left_out = spec_tests(shown, reports.spec_points)
    return Page(
        files={status.value: sum(s.result.status is status for s in shown) for status in Status},
        tests=tests,
        cached=sum(item.cached for item in shown),
        modes=tuple(cut_name(mode) for mode in _modes(shown)),
        rows=_rows(shown, anchors),
        failures=failures,
        failures_left_out=left_out,
        spec_tests=listed,
        tests_left_out=tests_left_out,
        slowest=_slowest(shown, reports.context.history),
        coverage=_coverage(reports.coverage, sources),
        fuzz=tuple(_fuzz(item) for item in reports.context.fuzz),
        shard=f"shard {shard.index} of {shard.count}" if shard else "",
    )


def _modes(shown: Sequence[Shown]) -> list[str]:
    """Every mode, whole, in first-seen order: the matrix's columns."""
    return list(dict.fromkeys(item.result.mode for item in shown))


def _failing_keys(reports: ReportInput) -> list[tuple[str, str]]:
    """The whole (mode, spec) of each failed result, in the order ``_failures`` shows them."""
    failed = (item.result for item in reports.shown if item.result.status is Status.FAILED)
    return [(result.mode, result.spec) for result in failed]


def _rows(shown: Sequence[Shown], anchors: dict[tuple[str, str], str]) -> tuple[Row, ...]:
    """One row per spec and one cell per mode, keyed by the whole names; only the label shown
    is cut (text_caps.cut_name)."""
    modes = _modes(shown)
    sections = spec_anchors(shown)
    by_spec: dict[str, dict[str, Cell]] = {}
    for item in shown:
        result = item.result
        by_spec.setdefault(result.spec, {})[result.mode] = Cell(
            status=result.status.value,
            counts=_counts_text(result),
            duration=format_seconds(result.duration_s),
            cached=item.cached,
            anchor=anchors.get((result.mode, result.spec), ""),
        )
    return tuple(
        Row(cut_name(spec), sections[spec], tuple(cells.get(mode) for mode in modes))
        for spec, cells in by_spec.items()
    )


def _counts_text(result: SpecResult) -> str:
    if result.stage is Stage.BUILD:
        return "build failed"
    counts = result.counts
    return (
        f"{counts.tests_passed} passed, {counts.tests_failed} failed, "
        f"{counts.tests_skipped} skipped"
    )


def _failures(
    reports: ReportInput, sources: SourceLines | None
) -> tuple[tuple[SpecFailures, ...], int]:
    shown: list[SpecFailures] = []
    room = MAX_FAILURES
    left_out = 0
    for item, whole in zip(reports.shown, reports.whole_results, strict=True):
        result = item.result
        if result.status is not Status.FAILED:
            continue
        kept = result.failures[: max(0, min(room, MAX_FAILURES_PER_SPEC))]
        room -= len(kept)
        left_out += len(result.failures) - len(kept)
        logs = tuple(
            cut(line, MAX_LINE) for line in lines_of_whole_json(result, whole)[-MAX_LOG_LINES:]
        )
        shown.append(
            SpecFailures(
                anchor=f"failure-{len(shown) + 1}",
                spec=cut_name(result.spec),
                mode=cut_name(result.mode),
                build_failed=result.stage is Stage.BUILD,
                failures=tuple(_failure(result.spec, f, sources) for f in kept),
                more=len(result.failures) - len(kept),
                log_lines=logs,
                output=last_part(result.output.strip()) if not result.error else "",
                repro=cut(_repro(result, reports.context.rerun_command), MAX_TEXT),
            )
        )
    return tuple(shown), left_out


def _failure(spec: str, failure: FailureDetail, sources: SourceLines | None) -> FailureView:
    where = f"{spec}:{failure.location}" if failure.location else spec
    source = pointed_line(sources, spec, failure.location) if sources and failure.location else None
    return FailureView(
        title=cut_name(failure.title),
        where=cut_name(where),
        matcher=cut_name(failure.matcher),
        expected=_first_part(failure.expected),
        received=_first_part(failure.actual),
        message=_first_part(failure.message) or "",
        source=source,
    )


def _first_part(text: str | None) -> str | None:
    return None if text is None else first_part(text)


def _repro(result: SpecResult, rerun_command: str) -> str:
    """The command that runs this spec in this mode again (a failed spec is never cached)."""
    if rerun_command:
        spec = shlex.quote(result.spec)
        return f"{rerun_command} --mode {shlex.quote(result.mode)} --spec {spec}"
    return result.build_command if result.stage is Stage.BUILD else ""


def _slowest(shown: Sequence[Shown], history: History) -> tuple[SlowSpec, ...]:
    ran = [item.result for item in shown if item.result.stage is Stage.RUN]
    ran.sort(key=lambda result: result.duration_s, reverse=True)
    slow: list[SlowSpec] = []
    for result in ran[:MAX_SLOWEST]:
        past = history.get(key_of(result), ())
        runs = [run.seconds for run in past]
        if not past or past[-1].session != result.session:
            runs.append(result.duration_s)  # history not at hand (astest merge): this run alone
        earlier = runs[:-1]
        usual = format_seconds(statistics.median(earlier)) if earlier else ""
        slow.append(
            SlowSpec(
                cut_name(result.spec),
                cut_name(result.mode),
                format_seconds(result.duration_s),
                usual,
                duration_chart(runs),
            )
        )
    return tuple(slow)


def _totals(label: str, covered: int, total: int, percent: float) -> Totals:
    return Totals(cut_name(label), covered, total, f"{percent:.2f}%")


def _coverage(outcome: CoverageOutcome | None, sources: SourceLines | None) -> CoverageView | None:
    if outcome is None:
        return None
    total = outcome.total
    files: list[CoverageFile] = []
    room = MAX_SOURCE_LINES if sources is not None else 0
    for coverage in total.files:
        source = (
            file_source(sources, coverage, room)
            if sources is not None
            else FileSource(coverage.file, (), unavailable=True)
        )
        room -= len(source.lines)
        gaps = [
            cut_name(f"{p.line}:{p.column} {p.type}") for p in coverage.points if not p.executed
        ]
        files.append(
            CoverageFile(
                totals=_totals(coverage.file, coverage.covered, coverage.total, coverage.percent),
                source=source,
                gaps=tuple(gaps[:MAX_GAPS_PER_FILE]),
            )
        )
    modes = tuple(
        _totals(mode.target.mode, mode.summary.covered, mode.summary.total, mode.summary.percent)
        for mode in outcome.modes
    )
    return CoverageView(
        modes=modes,
        total=_totals("all modes", total.covered, total.total, total.percent),
        files=tuple(files),
    )


def _fuzz(item: ShownFuzz) -> FuzzView:
    result = item.result
    run = result.run_command or f"doit astest:fuzz:{result.mode}:{result.file_id}"
    detail = campaign_detail(result)
    replay = ""
    if result.error and result.stage == "run":
        replay = replay_command(run, result.seed, result.runs_override)
    return FuzzView(
        file=cut_name(result.file),
        mode=cut_name(result.mode),
        passed=result.passed,
        detail=detail,
        seed=f"{result.seed}" + (" (random)" if result.seed_is_random else ""),
        duration=format_seconds(result.duration_s),
        cached=item.cached,
        error=_first_part(result.error) or "",
        replay=cut(replay, MAX_TEXT),
        fuzzers=_failed_fuzzers(result, run),
    )


def _failed_fuzzers(result: FuzzResult, run: str) -> tuple[FailedFuzzer, ...]:
    failed: list[FailedFuzzer] = []
    for fuzzer in result.failed_fuzzers:
        seeds = [str(failure.seed) for failure in fuzzer.failures[:MAX_SEEDS_SHOWN]]
        more = len(fuzzer.failures) - len(seeds)
        first = fuzzer.failures[0] if fuzzer.failures else None
        done = fuzzer.passed + fuzzer.failed + fuzzer.crashed
        failed.append(
            FailedFuzzer(
                name=cut_name(fuzzer.name),
                message=cut(fuzzer.assertion.message, MAX_TEXT),
                expected=cut(fuzzer.assertion.right, MAX_TEXT),
                received=cut(fuzzer.assertion.left, MAX_TEXT),
                runs=f"{done} completed ({fuzzer.passed} passed, {fuzzer.failed} failed, "
                f"{fuzzer.crashed} crashed)",
                seeds=", ".join(seeds) + (f" and {more} more" if more else ""),
                first_input=cut(first.input, MAX_TEXT) if first is not None else "",
                repro=cut(replay_command(run, first.seed), MAX_TEXT) if first is not None else "",
            )
        )
    return tuple(failed)
