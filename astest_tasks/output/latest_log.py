"""``<logs>/latest.log``: every ``log()`` line of the run's specs in one file, and the
``--show-logs`` block, as as-test 1.4.0+ writes and prints them (``renderCollectedLogs`` and
``flushLatestLog`` in its ``cli/commands/run-core.ts``).

One block per spec, in path order, its modes merged where their lines are the same::

    [LOG] nested/array.spec.ts (bindings, wasi):

    first line
    second line

The spec is shown by its path below ``__tests__`` (as-test's ``formatSpecDisplayPath``), a
block names its modes except ``default``, and the file sits in the base config's logs folder,
shared by every mode. It is written with the reports, so only when a result changed; a run whose
specs logged nothing removes it (as-test leaves the last run's file, which then describes another
run). ``"logs": "none"`` writes none.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path

from astest_tasks.core.atomic import write_text_atomic
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import for_stream
from astest_tasks.model.guest_report import Suite
from astest_tasks.model.results import SpecResult
from astest_tasks.output.terminal import output_stream

FILE_NAME = "latest.log"
DEFAULT_MODE = "default"


@frozen
class SpecLogLines:
    spec: str
    mode: str
    lines: tuple[str, ...]


@frozen
class CollectedLogs:
    text: str  # "" when nothing was logged
    count: int  # log() calls, each block's counted once however many modes share it


def log_lines(result: SpecResult) -> tuple[str, ...]:
    """A result's ``log()`` lines, depth-first in report order."""
    return tuple(_walk(result.suites))


def lines_of_whole_json(result: SpecResult, whole_json: str) -> tuple[str, ...]:
    """The same from a stored result's text, parsed only when it holds a log line at all."""
    if result.suites:
        return log_lines(result)
    if '"logs":["' not in whole_json:
        return ()
    return log_lines(SpecResult.from_json(whole_json))


def collect(specs: Iterable[SpecLogLines]) -> CollectedLogs:
    by_spec: dict[str, dict[str, tuple[str, ...]]] = {}
    for item in specs:
        if item.lines:
            by_spec.setdefault(item.spec, {})[item.mode] = item.lines
    blocks: list[str] = []
    count = 0
    for spec in sorted(by_spec):
        by_content: dict[tuple[str, ...], list[str]] = {}
        for mode, lines in by_spec[spec].items():
            by_content.setdefault(lines, []).append(mode)
        for lines, modes in by_content.items():
            named = sorted(mode for mode in modes if mode != DEFAULT_MODE)
            suffix = f" ({', '.join(named)})" if named else ""
            count += len(lines)
            blocks.append(f"[LOG] {display_path(spec)}{suffix}:\n\n" + "\n".join(lines))
    return CollectedLogs("\n\n".join(blocks) + "\n" if blocks else "", count)


def display_path(spec: str) -> str:
    parts = spec.split("/")
    if "__tests__" in parts[:-1]:
        last = len(parts) - 1 - parts[::-1].index("__tests__")
        return "/".join(parts[last + 1 :])
    return spec


def write_latest_log(root: Path, logs_root: str | None, collected: CollectedLogs) -> None:
    if logs_root is None:
        return
    path = root / logs_root / FILE_NAME
    if collected.text:
        write_text_atomic(path, collected.text)
    else:
        path.unlink(missing_ok=True)


def print_logs(collected: CollectedLogs) -> None:
    """``--show-logs``: a heading with the count, then the blocks (before the summary, whose
    last line stays the tests count)."""
    if not collected.count:
        return
    stream = output_stream()
    stream.write(for_stream(f"Logs ({collected.count})\n\n{collected.text}\n", stream))
    stream.flush()


def logs_root_of(base_logs_dir: str | None) -> str | None:
    """The base config's logs folder, without the ``default`` mode's own part."""
    return posixpath.dirname(base_logs_dir) if base_logs_dir is not None else None


def _walk(suites: Sequence[Suite]) -> Iterable[str]:
    for suite in suites:
        yield from suite.logs
        yield from _walk(suite.suites)
