"""The summary task: read every result file, fresh or cached, print them, and write the reports
(report.json and every other registered format, see output/formats)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from astest_tasks.config.pipeline import task_command
from astest_tasks.config.shards import ShardPart
from astest_tasks.core.frozen import frozen, record_fields
from astest_tasks.core.guest_text import for_stream
from astest_tasks.core.option_declarations import declaration
from astest_tasks.core.project_source import file_signature
from astest_tasks.core.records import encode
from astest_tasks.core.version import __version__
from astest_tasks.coverage.points import SourceLines
from astest_tasks.model.guest_report import Verdict
from astest_tasks.model.results import (
    SpecIdentity,
    SpecResult,
    Stage,
    Status,
    StoredResult,
    failure_result,
    parse_stored,
    read_result,
    read_result_file,
)
from astest_tasks.output.ansi import Fore
from astest_tasks.output.console import Shown, render_summary
from astest_tasks.output.coverage_summary import (
    CoverageOutcome,
    CoverageTarget,
    collect_coverage,
    write_coverage_files,
)
from astest_tasks.output.durations import duration_lines
from astest_tasks.output.formats import (
    REPORT_FILE,
    REPORT_FORMAT,
    report_file_names,
    write_report_files,
)
from astest_tasks.output.fuzz_summary import FuzzEntry, ShownFuzz, load_fuzz_results, print_fuzz
from astest_tasks.output.latest_log import (
    CollectedLogs,
    SpecLogLines,
    collect,
    lines_of_whole_json,
    write_latest_log,
)
from astest_tasks.output.report_options import ReportOptions
from astest_tasks.output.report_state import (
    STATE_FILE,
    ReportState,
    file_digest,
    known_digest,
    load_state,
    modification_times,
    outputs_untouched,
    reports_digest,
    save_state,
)
from astest_tasks.output.terminal import Palette, output_stream, use_colour

if TYPE_CHECKING:  # these load with what uses them: --show-coverage, a rewrite (issue 40)
    from astest_tasks.model.test_cases import TestCase as Point
    from astest_tasks.output.coverage_gaps import GapListing
    from astest_tasks.output.report_input import ReportContext


@frozen
class SummaryEntry:
    mode: str
    spec_id: str
    spec: str
    target: str
    result: str  # result file, relative to the project root
    run_task: str = ""  # the run task's full name, for the hint when the result is missing
    command: str = "doit"  # what runs it


@frozen
class SummaryPlan:
    project_root: str
    report_path: str
    entries: tuple[SummaryEntry, ...]
    # The summary's own options (--suite, --verbose, --durations, ...), handed over whole.
    report: ReportOptions = field(default_factory=ReportOptions)
    logs_root: str | None = None  # the base config's logs folder: latest.log goes there
    fuzz_entries: tuple[FuzzEntry, ...] = ()  # campaigns the run includes (--fuzz)
    coverage: tuple[CoverageTarget, ...] = ()  # the selected modes that have coverage on
    shard: ShardPart | None = None  # when this run is shard k of N: its part of the split
    note: str = ""  # how the specs were chosen (--changed), printed above the summary
    show_coverage: bool = False  # --show-coverage: list the uncovered points (coverage_gaps.py)
    expand_coverage_gaps: bool = False  # --show-coverage=all: nested points too
    rerun_command: str = ""  # how the HTML report's repro lines run a spec: "doit astest"

    @property
    def gaps(self) -> GapListing | None:
        """How the uncovered points are listed, when they are to be."""
        if not self.show_coverage:
            return None
        from astest_tasks.output.coverage_gaps import GapListing

        typed = any(target.rules.typed_points for target in self.coverage)  # one as-test for all
        return GapListing(Path(self.project_root), self.expand_coverage_gaps, typed)


def summary_coverage(plan: SummaryPlan, shown: list[Shown]) -> CoverageOutcome | None:
    """The coverage of the shown results (cached ones too); None when no mode has it on."""
    results = [item.result for item in shown]
    return collect_coverage(Path(plan.project_root), plan.coverage, results)


# The summary's options that change the printout (or the verdict) but not the reports' contents:
# declared with the option (output/report_options.py), so a new option shapes the reports (and
# rewrites them when it changes) unless its declaration says otherwise.
PRINTOUT_ONLY = frozenset(
    f.name
    for f in record_fields(ReportOptions)
    if (declared := declaration(f)) is not None and declared.printout_only
)


def _shaping(plan: SummaryPlan) -> dict[str, object]:
    """What of the plan the reports are made from: all of it but the printout-only options."""
    return {**encode(plan), "report": encode(plan.report, leave_out=PRINTOUT_ONLY)}


def write_report(
    plan: SummaryPlan,
    loaded: Sequence[LoadedSpec],
    coverage: CoverageOutcome | None = None,
    fuzz: Sequence[ShownFuzz] = (),
) -> bool:
    """Write the reports unless nothing that shapes them changed since they were written; True
    when nothing failed. Prints nothing (see ``print_summary``)."""
    root = Path(plan.project_root)
    report = root / plan.report_path
    state_path = _state_path(plan)
    passed = all(item.shown.result.status != Status.FAILED for item in loaded)
    digests = [item.digest for item in loaded]
    if any(digest is None for digest in digests):
        # A --suite or --test-name-pattern run reports a cut-down selection: write it all, and
        # forget the state, which describes the reports of another selection.
        state_path.unlink(missing_ok=True)
        if coverage is not None:
            write_coverage_files(root, coverage)
        context = _report_context(plan, loaded, fuzz)
        write_reports(report, [item.shown for item in loaded], coverage, plan.shard, context)
        write_latest_log(root, plan.logs_root, collected_logs(loaded))
        return passed
    # What only changes the printout is not part of what the reports are made from.
    options = {
        "plan": _shaping(plan),
        "format": REPORT_FORMAT,
        "version": __version__,
        # A format added (or moved) since the state was saved has no file yet: write them all.
        "files": report_file_names(),
        # The HTML report shows the fuzz campaigns of a --fuzz run.
        "fuzz": [file_digest(item.result.to_json().encode("utf-8")) for item in fuzz],
    }
    digest = reports_digest(options, [str(d) for d in digests])
    state = load_state(state_path)
    hashed = {item.seen[0]: (item.seen[1], str(item.digest)) for item in loaded if item.seen}
    if state is not None and state.digest == digest and outputs_untouched(root, state.outputs):
        if state.results != hashed:  # a result rewritten with the same bytes, or a new state
            # Only a memo: the state it would replace is still true (a file it does not know is
            # digested again), so a full disk or a read-only folder costs a digest next time.
            with contextlib.suppress(OSError):
                save_state(state_path, replace(state, results=hashed))
        return passed  # the reports on disk are the ones these results make
    from astest_tasks.output.report_input import ReportInput  # the reports are rewritten

    reports = ReportInput(
        shown=[item.shown for item in loaded],
        whole_results=[item.whole_json() for item in loaded],
        spec_points=[_points_of(item) for item in loaded],
        coverage=coverage,
        shard=plan.shard,
        context=_report_context(plan, loaded, fuzz),
    )
    files = write_report_files(_report_folder(report), reports)
    write_latest_log(root, plan.logs_root, collected_logs(loaded))
    written = [os.path.relpath(path, root) for path in files]  # the output may be outside
    written += write_coverage_files(root, coverage) if coverage is not None else []
    save_state(state_path, ReportState(digest, modification_times(root, written), hashed))
    return passed


def _state_path(plan: SummaryPlan) -> Path:
    return (Path(plan.project_root) / plan.report_path).with_name(STATE_FILE)


def _report_context(
    plan: SummaryPlan, loaded: Sequence[LoadedSpec], fuzz: Sequence[ShownFuzz]
) -> ReportContext:
    """What the HTML report shows beyond the results; the runs shown join the durations'
    history in the state folder here, as the reports are rewritten only when a result changed."""
    from astest_tasks.output.duration_history import update_history
    from astest_tasks.output.report_input import ReportContext

    root = Path(plan.project_root)
    history = update_history(
        _report_folder(root / plan.report_path), [item.shown.result for item in loaded]
    )
    return ReportContext(root, tuple(fuzz), history, plan.rerun_command)


def collected_logs(loaded: Sequence[LoadedSpec]) -> CollectedLogs:
    """Every spec's ``log()`` lines, for latest.log and ``--show-logs`` (latest_log.py)."""
    return collect(
        SpecLogLines(
            item.shown.result.spec,
            item.shown.result.mode,
            lines_of_whole_json(item.shown.result, item.whole_json()),
        )
        for item in loaded
    )


def _report_folder(report: Path) -> Path:
    """The folder every format is written to: report.json's (which the JSON format writes)."""
    if report.name != REPORT_FILE:
        raise ValueError(f"{report}: the reports are written as {REPORT_FILE} and beside it")
    return report.parent


def _points_of(item: LoadedSpec) -> list[Point]:
    from astest_tasks.model.test_cases import TestCase as Point
    from astest_tasks.output.ci_reports import points

    if item.stored is None:  # a result made up here (missing file): it has its suites
        return points(item.shown.result)
    try:
        return item.stored.test_cases() or points(item.shown.result)
    except (ValueError, TypeError):
        # The file's head was readable but the rest is not (edited by hand?): say so, in red.
        return [
            Point(
                name="unreadable result",
                verdict=Verdict.FAIL,
                details=f"the result file of {item.shown.result.spec} [{item.shown.result.mode}] "
                "is damaged; fix: run `doit forget` on its run task",
                failed=1,
            )
        ]


def write_reports(
    report: Path,
    shown: list[Shown],
    coverage: CoverageOutcome | None = None,
    shard: ShardPart | None = None,
    context: ReportContext | None = None,
) -> bool:
    """Every registered format's file in ``report``'s folder (``report`` names report.json),
    for programs and CI; True when nothing failed. The results must have their suites;
    ``context`` is what the HTML report shows beyond them (none: nothing more)."""
    from astest_tasks.output.ci_reports import points
    from astest_tasks.output.report_input import NO_CONTEXT, ReportInput

    reports = ReportInput(
        shown=shown,
        whole_results=[item.result.to_json() for item in shown],
        spec_points=[points(item.result) for item in shown],
        coverage=coverage,
        shard=shard,
        context=NO_CONTEXT if context is None else context,
    )
    write_report_files(_report_folder(report), reports)
    return all(item.result.status != Status.FAILED for item in shown)


@frozen
class SummaryExtras:
    """What a run adds to the printout before the totals: ``--durations``' count, and the lines
    of coverage floors not met (coverage_threshold.py)."""

    durations: int | None = None
    threshold_failures: tuple[str, ...] = ()


NO_EXTRAS: Final = SummaryExtras()


def print_summary(
    shown: list[Shown],
    coverage: CoverageOutcome | None = None,
    gaps: GapListing | None = None,
    verbose: bool = False,
    extras: SummaryExtras = NO_EXTRAS,
) -> None:
    """Print every spec's result, failures, coverage (with its uncovered points when ``gaps``
    asks for them) and totals; the last line is the tests count."""
    stream = output_stream()
    palette = Palette(enabled=use_colour(stream))
    total = coverage.total if coverage else None
    gap_lines: list[str] = []
    if total is not None and gaps is not None:
        from astest_tasks.output.coverage_gaps import coverage_gap_lines

        gap_lines = coverage_gap_lines(
            total, SourceLines(gaps.root), palette, gaps.expand_nested, gaps.typed_points
        )
    before_totals: list[str] = []
    if extras.durations is not None:
        before_totals += duration_lines(shown, extras.durations, palette)
    if extras.threshold_failures:
        before_totals.append("")
        before_totals += [
            f"{palette.badge(Status.FAILED)} {palette.paint(line, Fore.RED)}"
            for line in extras.threshold_failures
        ]
    text = render_summary(shown, palette, total, gap_lines, verbose, before_totals)
    stream.write(for_stream(text, stream))
    stream.flush()


def load_fuzz(plan: SummaryPlan, session: str) -> list[ShownFuzz]:
    """The fuzz campaigns a plain run includes (none without --fuzz)."""
    return load_fuzz_results(Path(plan.project_root), plan.fuzz_entries, session)


def print_with_fuzz(
    shown: list[Shown],
    fuzz: list[ShownFuzz],
    coverage: CoverageOutcome | None = None,
    note: str = "",
    gaps: GapListing | None = None,
    verbose: bool = False,
    extras: SummaryExtras = NO_EXTRAS,
) -> None:
    """The fuzz results first, so the specs' summary, with its tests line, stays last."""
    if note:
        stream = output_stream()
        stream.write(for_stream(f"{note}\n", stream))
    if fuzz:
        print_fuzz(fuzz)
        output_stream().write("\n")
    print_summary(shown, coverage, gaps, verbose, extras)


@frozen
class LoadedSpec:
    """A spec's result as the summary shows it, and where it came from.

    ``shown.result`` has no suites when it was read from a file (``stored``): the summary prints
    from the file's head, and the reports parse the suites only for a result they do not know.
    ``digest`` is the result file's; None for a ``--suite`` selection's cut-down result.
    ``seen`` is the result file's path and its signature when read (report_state.py), for the
    next summary to know its digest without hashing it again.
    """

    shown: Shown
    stored: StoredResult | None
    digest: str | None
    seen: tuple[str, str] | None = None

    def whole_json(self) -> str:
        if self.stored is not None:
            return self.stored.whole_json()
        return self.shown.result.to_json()


def load_summary(plan: SummaryPlan, session: str) -> list[Shown]:
    """Every spec's result (without its suites unless a ``--suite`` selection needs them)."""
    return [item.shown for item in load_specs(plan, session)]


def load_specs(plan: SummaryPlan, session: str) -> list[LoadedSpec]:
    """Every spec's result, cut down to the ``--suite`` selection when there is one, with the
    tests ``--test-name-pattern`` does not match counted as skipped (test_name_filter.py)."""
    root = Path(plan.project_root)
    report = plan.report
    if not report.suite and not report.test_name_pattern:
        state = load_state(_state_path(plan))
        known = state.results if state is not None else {}
        stored = [_load_stored(root, entry, session, known) for entry in plan.entries]
        # --verbose only changes what is printed: the suites are parsed for the printout, and
        # the digests stay, so the reports are rewritten only when a result changed.
        # --durations reads the tests' times from the suites, as --verbose prints them.
        wants_suites = report.verbose or report.durations is not None
        return [_with_suites(item) for item in stored] if wants_suites else stored
    # Only a selection loads the filters, and what they count with (issue 40).
    from astest_tasks.output.suite_filter import filter_result
    from astest_tasks.output.test_name_filter import (
        compile_test_name_pattern,
        skip_unmatched_tests,
    )

    pattern = compile_test_name_pattern(report.test_name_pattern)
    loaded: list[LoadedSpec] = []
    for entry in plan.entries:
        item = _load(root, entry, session)
        result: SpecResult | None = item.result
        if report.suite:
            filtered = filter_result(item.result, report.suite)
            result = filtered.result
            if filtered.problem:
                who = SpecIdentity(entry.spec, entry.spec_id, entry.mode, entry.target)
                result = failure_result(who, session, Stage.RUN, filtered.problem, "", "")
        if result is None:
            continue
        if pattern is not None:
            result = skip_unmatched_tests(result, pattern)
        loaded.append(LoadedSpec(Shown(result=result, cached=item.cached), None, None))
    if not report.suite:
        return loaded
    if not loaded:
        wanted = ", ".join(report.suite)
        who = SpecIdentity("(all specs)", "--suite", "-", "-")
        problem = failure_result(
            who,
            session,
            Stage.RUN,
            f'no suite matched "{wanted}"',
            "a selector with / must equal a suite path (descriptions slugified, joined with /); "
            "a bare one matches the last part of a path",
            "",
        )
        loaded.append(LoadedSpec(Shown(result=problem, cached=False), None, None))
    return loaded


def _with_suites(item: LoadedSpec) -> LoadedSpec:
    if item.stored is None:
        return item
    return replace(item, shown=replace(item.shown, result=item.stored.full()))


def _load_stored(
    root: Path, entry: SummaryEntry, session: str, known: Mapping[str, tuple[str, str]]
) -> LoadedSpec:
    read = read_result_file(root / entry.result)
    data, status = read if read is not None else (b"", None)
    stored = parse_stored(data) if data else None
    if stored is None or status is None:
        missing = Shown(result=_missing_result(entry, session), cached=False)
        return LoadedSpec(missing, None, "missing")
    shown = Shown(result=stored.result, cached=stored.result.session != session)
    signature = file_signature(status)
    digest = known_digest(known, entry.result, signature, data)
    return LoadedSpec(shown, stored, digest, (entry.result, signature))


def _load(root: Path, entry: SummaryEntry, session: str) -> Shown:
    result = read_result(root / entry.result)
    if result is None:
        return Shown(result=_missing_result(entry, session), cached=False)
    return Shown(result=result, cached=result.session != session)


def _missing_result(entry: SummaryEntry, session: str) -> SpecResult:
    run_task = task_command(entry.command, entry.run_task)
    forget = task_command(f"{entry.command} forget", entry.run_task)
    details = (
        f"no result at {entry.result}; run `{run_task}` (or `{forget}` if the file was deleted "
        "behind doit's back)"
    )
    who = SpecIdentity(path=entry.spec, spec_id=entry.spec_id, mode=entry.mode, target=entry.target)
    return failure_result(who, session, Stage.RUN, "no result", details, "")
