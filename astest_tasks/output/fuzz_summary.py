"""Fuzz results for people: one line per campaign, failing fuzzers with their seeds and the
command that replays each, and a ``fuzz:`` totals line.

``doit astest:fuzz`` prints this alone (its last line is the ``fuzz:`` totals); with fuzzing
part of a plain run it is printed ahead of the specs' summary, whose last line stays the tests
count that scripts read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from astest_tasks.config.pipeline import task_command
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream, inert_field
from astest_tasks.core.records import decode
from astest_tasks.model.results import Status
from astest_tasks.output.ansi import Fore, Style
from astest_tasks.output.console import format_seconds
from astest_tasks.output.terminal import (
    Palette,
    output_stream,
    strip_colour,
    use_colour,
)

if TYPE_CHECKING:  # a summary without fuzz files never reads a fuzz result
    from astest_tasks.fuzz.results import FuzzResult

MAX_SEEDS_SHOWN = 8  # a fuzzer failing on every run would otherwise print a thousand seeds


@frozen
class FuzzEntry:
    mode: str
    file_id: str
    file: str
    result: str  # result file, relative to the project root
    group: str = "astest:fuzz"
    command: str = "doit"
    fuzzers: Sequence[str] = ()  # --fuzzer: report only these (fuzz/fuzzer_selection.py)

    @property
    def run_command(self) -> str:
        return task_command(self.command, f"{self.group}:{self.mode}:{self.file_id}")


@frozen
class ShownFuzz:
    result: FuzzResult
    cached: bool


def load_fuzz_results(root: Path, entries: Sequence[FuzzEntry], session: str) -> list[ShownFuzz]:
    if not entries:
        return []  # no fuzz files: nothing of fuzz's is loaded
    from astest_tasks.fuzz.fuzzer_selection import select_fuzzers
    from astest_tasks.fuzz.results import read_fuzz_result

    shown = []
    for entry in entries:
        result = read_fuzz_result(root / entry.result)
        if result is None:
            result = _missing(entry, session)
        result = select_fuzzers(result, entry.fuzzers)
        shown.append(ShownFuzz(result, cached=result.session != session))
    return shown


def _missing(entry: FuzzEntry, session: str) -> FuzzResult:
    from astest_tasks.fuzz.results import FuzzResult

    return FuzzResult.without_outcomes(
        file=entry.file,
        file_id=entry.file_id,
        mode=entry.mode,
        run_command=entry.run_command,
        session=session,
        error=f"no result at {entry.result}; run `{entry.run_command}`",
    )


def campaign_detail(result: FuzzResult) -> str:
    """What a campaign's line says of it, in the summary and the HTML report."""
    if result.stage == "build":
        return "build failed"
    if result.error and not result.fuzzers:
        # A crash, a limit that stopped it, a report that never came or no result at all: the
        # failure block below the line says which.
        return "no fuzzer report"
    fuzzers = len(result.fuzzers)
    return f"{fuzzers} fuzzer{'s' if fuzzers != 1 else ''}, {result.runs} runs"


def fuzz_line(result: FuzzResult, palette: Palette, *, cached: bool) -> str:
    status = Status.PASSED if result.passed else Status.FAILED
    detail = campaign_detail(result)
    seed = f"seed {result.seed}" + (" (random)" if result.seed_is_random else "")
    timing = format_seconds(result.duration_s)
    text = (
        f"{palette.badge(status)} fuzz {result.mode}  {inert_field(result.file_id)}  {detail}, "
        f"{seed}  {palette.dim(timing)}{palette.dim(' (cached)') if cached else ''}"
    )
    return text if palette.enabled else strip_colour(text)


def render_fuzz(shown: Sequence[ShownFuzz], palette: Palette) -> str:
    lines = [fuzz_line(item.result, palette, cached=item.cached) for item in shown]
    blocks = [_failure_block(item.result, palette) for item in shown if not item.result.passed]
    for block in blocks:
        lines.append("")
        lines.extend(block)
    lines.append("")
    lines.append(fuzz_totals(shown))
    text = "\n".join(lines) + "\n"
    return text if palette.enabled else strip_colour(text)


def fuzz_totals(shown: Sequence[ShownFuzz]) -> str:
    passed = sum(1 for item in shown if item.result.passed)
    failed = len(shown) - passed
    runs = sum(item.result.runs for item in shown)
    return f"fuzz: {passed} passed, {failed} failed, {runs} runs"


def _failure_block(result: FuzzResult, palette: Palette) -> list[str]:
    from astest_tasks.fuzz.runs import replay_command

    # The id is made safe for a task name (config/discovery.py); a result file may say otherwise.
    run = inert_field(result.run_command or f"doit astest:fuzz:{result.mode}:{result.file_id}")
    header = f"{palette.badge(Status.FAILED)} {inert_field(result.file)} [{result.mode}]"
    lines = [header]
    if result.error:
        lines.extend(f"  {line}" for line in result.error.splitlines())
        if result.stage == "run":
            runs = result.runs_override
            lines.append(f"  replay: {replay_command(run, result.seed, runs)}")
    for fuzzer in result.failed_fuzzers:
        lines.append(f"  {palette.paint(inert_field(fuzzer.name), Fore.RED, Style.BRIGHT)}")
        assertion = fuzzer.assertion
        if assertion.message:
            lines.append(f"    message:  {inert_field(assertion.message)}")
        if assertion.left or assertion.right:
            lines.append(f"    expected: {palette.paint(inert_field(assertion.right), Fore.GREEN)}")
            lines.append(f"    received: {palette.paint(inert_field(assertion.left), Fore.RED)}")
        done = fuzzer.passed + fuzzer.failed + fuzzer.crashed
        lines.append(
            f"    runs: {done} completed ({fuzzer.passed} passed, {fuzzer.failed} failed, "
            f"{fuzzer.crashed} crashed)"
        )
        if fuzzer.failures:
            seeds = [str(item.seed) for item in fuzzer.failures[:MAX_SEEDS_SHOWN]]
            more = len(fuzzer.failures) - len(seeds)
            lines.append(
                f"    failing seeds: {', '.join(seeds)}" + (f" and {more} more" if more else "")
            )
            first = fuzzer.failures[0]
            if first.input:
                lines.append(f"    first failing input: {inert_field(first.input)}")
            lines.append(f"    repro (one run): {replay_command(run, first.seed)}")
    for record in result.crash_records:
        lines.append(f"  crash record: {record}")
    return lines


def print_fuzz(shown: Sequence[ShownFuzz]) -> None:
    stream = output_stream()
    stream.write(for_stream(render_fuzz(shown, Palette(use_colour(stream))), stream))
    stream.flush()


def load_fuzz_plan(plan: Mapping[str, object], session: str) -> list[ShownFuzz]:
    """The campaigns a fuzz summary plan names, with their results."""
    raw_entries = plan["entries"]
    assert isinstance(raw_entries, list)
    entries = [
        decode(FuzzEntry, entry, where=f"entries[{index}]")
        for index, entry in enumerate(raw_entries)
    ]
    return load_fuzz_results(Path(str(plan["project_root"])), entries, session)
