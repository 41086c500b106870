"""Rendering results for people: coloured on a terminal, plain in a pipe (the terminal module
decides which)."""

from __future__ import annotations

from collections.abc import Sequence

from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import inert_field
from astest_tasks.coverage.model import CoverageSummary
from astest_tasks.model.guest_report import Counts
from astest_tasks.model.results import SpecResult, Stage, Status
from astest_tasks.output.ansi import Back, Fore, Style
from astest_tasks.output.terminal import Palette, strip_colour


@frozen
class Shown:
    """A result as the summary shows it: fresh from this doit run, or cached from an earlier one,
    or taken from the shared remote cache in this run (``remote``, never ``cached`` too)."""

    result: SpecResult
    cached: bool
    remote: bool = False


def render_summary(
    shown: Sequence[Shown],
    palette: Palette,
    coverage: CoverageSummary | None = None,
    coverage_gaps: Sequence[str] = (),
    verbose: bool = False,
    before_totals: Sequence[str] = (),
) -> str:
    """``verbose``: each spec's suites and tests under its line (the results hold them);
    ``before_totals``: lines printed last before the totals (``--durations``, a coverage floor
    not met), so the tests line stays the last."""
    lines: list[str] = []
    id_width = max((len(s.result.spec_id) for s in shown), default=0)
    mode_width = max((len(s.result.mode) for s in shown), default=0)
    for item in shown:
        lines.append(_spec_line(item, palette, id_width, mode_width))
        if verbose:
            from astest_tasks.output.verbose_tree import tree_lines  # --verbose's alone (issue 40)

            lines.extend(tree_lines(item.result.suites, palette))
    failure_blocks = [_failure_block(item, palette) for item in shown if _has_details(item)]
    if failure_blocks:
        lines.append("")
        lines.append(palette.paint("Failures", Style.BRIGHT))
        for block in failure_blocks:
            lines.append("")
            lines.extend(block)
    warning_lines = [
        f"{palette.paint(' WARN ', Back.YELLOW, Fore.BLACK)} {inert_field(s.result.spec_id)} "
        f"[{s.result.mode}]: {inert_field(warning)}"
        for s in shown
        for warning in (*s.result.warnings, *(() if s.cached else s.result.written))
    ]
    if warning_lines:
        lines.append("")
        lines.extend(warning_lines)
    if coverage is not None:  # before the totals, as as-test prints it: the tests line stays last
        from astest_tasks.output.coverage_console import coverage_lines

        lines.append("")
        lines.extend(coverage_lines(coverage, palette))
        lines.extend(coverage_gaps)  # --show-coverage (coverage_gaps.py)
    lines.extend(before_totals)
    lines.append("")
    lines.extend(_totals(shown, palette))
    text = "\n".join(lines) + "\n"
    # Compiler diagnostics and spec output may carry their own colours (asc colours its messages
    # when CI is set); a summary without colour must have none at all, whatever the source.
    return text if palette.enabled else strip_colour(text)


def live_line(result: SpecResult, position: int, total: int, palette: Palette) -> str:
    """One line as a spec finishes: ``[3/40]`` then the verdict line the summary will show."""
    progress = palette.dim(f"[{position}/{total}]")
    line = _spec_line(Shown(result=result, cached=False), palette, 0, 0)
    text = f"{progress} {line}"
    return text if palette.enabled else strip_colour(text)


def _spec_line(item: Shown, palette: Palette, id_width: int, mode_width: int) -> str:
    result = item.result
    counts = result.counts
    detail = (
        "build failed"
        if result.stage == Stage.BUILD
        else f"{counts.tests_passed} passed, {counts.tests_failed} failed, "
        f"{counts.tests_skipped} skipped"
    )
    timing = format_seconds(result.duration_s)
    cached = palette.dim(" (cached)") if item.cached else ""
    if item.remote:
        cached = palette.dim(" (remote)")
    return (
        f"{palette.badge(result.status)} {result.mode.ljust(mode_width)}  "
        f"{inert_field(result.spec_id).ljust(id_width)}  {detail}  {palette.dim(timing)}{cached}"
    )


def _has_details(item: Shown) -> bool:
    return item.result.status == Status.FAILED


def _failure_block(item: Shown, palette: Palette) -> list[str]:
    # The caps load with the first failure to show (issue 40).
    from astest_tasks.output.text_caps import MAX_LINE, cut, cut_name, first_part

    result = item.result
    header = f"{palette.badge(Status.FAILED)} {inert_field(result.spec)} [{result.mode}]"
    lines = [palette.paint(header, Style.BRIGHT) if not palette.enabled else header]
    # What a spec wrote (names, values, messages, its output) is shown up to text_caps.py's
    # sizes, as in the other reports: a spec may print 64 MiB or compare a 4 MB value, and the
    # summary is read in a terminal or a CI log. report.json keeps every character.
    for failure in result.failures:
        place = f"{inert_field(result.spec)}:{inert_field(cut_name(failure.location))}"
        where = f" ({place})" if failure.location else ""
        title = inert_field(cut_name(failure.title))
        lines.append(f"  {palette.paint(title, Fore.RED)}{where}")
        if failure.expected is None and failure.actual is None:
            # A runtime or build failure: its message is the whole story. A runtime failure's
            # holds the spec's output; a build failure's, the compiler's, shown whole.
            lines.append(f"    {inert_field(cut_name(failure.matcher))}")
            message = (
                failure.message if result.stage == Stage.BUILD else first_part(failure.message)
            )
            lines.extend(f"    {line}" for line in message.splitlines())
            continue
        lines.append(f"    matcher:  {inert_field(cut_name(failure.matcher))}")
        expected = inert_field(first_part(str(failure.expected)))
        received = inert_field(first_part(str(failure.actual)))
        lines.append(f"    expected: {palette.paint(expected, Fore.GREEN)}")
        lines.append(f"    received: {palette.paint(received, Fore.RED)}")
        if failure.message:
            lines.append(f"    message:  {inert_field(first_part(failure.message))}")
    if result.output.strip() and result.stage == Stage.RUN and not _runtime_failed(result):
        lines.append("    output:")
        tail = result.output.strip().splitlines()[-20:]
        lines.extend(f"      {cut(line, MAX_LINE)}" for line in tail)
    return lines


def _runtime_failed(result: SpecResult) -> bool:
    # A runtime failure's message already carries the spec's stdout.
    return bool(result.error)


def _totals(shown: Sequence[Shown], palette: Palette) -> list[str]:
    total = Counts.zero()
    files = {Status.PASSED: 0, Status.FAILED: 0, Status.SKIPPED: 0}
    cached = remote = 0
    for item in shown:
        total = total + item.result.counts
        files[item.result.status] += 1
        cached += item.cached
        remote += item.remote
    failed_colour = Fore.RED if palette.enabled else ""

    def line(label: str, passed: int, failed: int, skipped: int, extra: str = "") -> str:
        failed_text = f"{failed} failed"
        if failed:
            failed_text = palette.paint(failed_text, failed_colour, Style.BRIGHT)
        return f"{label}: {passed} passed, {failed_text}, {skipped} skipped{extra}"

    notes = [f"{cached} cached"] if cached else []
    notes += [f"{remote} remote"] if remote else []
    cached_note = f" ({', '.join(notes)})" if notes else ""
    return [
        line(
            "files",
            files[Status.PASSED],
            files[Status.FAILED],
            files[Status.SKIPPED],
            cached_note,
        ),
        line("suites", total.suites_passed, total.suites_failed, total.suites_skipped),
        # The last line stays plain text in every mode: scripts and CI read it.
        f"tests: {total.tests_passed} passed, {total.tests_failed} failed, "
        f"{total.tests_skipped} skipped",
    ]


def format_seconds(seconds: float) -> str:
    if seconds < 1.0:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def render_changed(shown: Sequence[Shown], palette: Palette) -> str:
    """A watch cycle's few lines: the specs this run ran (cached ones are left out), their
    failures, then the totals over every spec, so the tests line stays last."""
    fresh = [item for item in shown if not item.cached]
    id_width = max((len(s.result.spec_id) for s in fresh), default=0)
    mode_width = max((len(s.result.mode) for s in fresh), default=0)
    lines = [_spec_line(item, palette, id_width, mode_width) for item in fresh]
    for item in fresh:
        if _has_details(item):
            lines.append("")
            lines.extend(_failure_block(item, palette))
    if lines:
        lines.append("")
    lines.extend(_totals(shown, palette))
    text = "\n".join(lines) + "\n"
    return text if palette.enabled else strip_colour(text)
