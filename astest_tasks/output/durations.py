"""``--durations=N``: the N slowest specs, and the N slowest tests where the report timed them, as
pytest's ``--durations`` lists its slowest phases (``N=0`` lists all, as there).

pytest calls its section "slowest N durations" (``slowest durations`` for all); we print one
section for the specs and one for the tests, since a spec's time holds its tests' and one list
would show only specs. The sections stand after the failures and coverage and before the totals,
where pytest has them too, so the summary's last line stays the tests count.

A spec's time is its run's (``duration_s``, the one the summary prints, cached ones included).
A test's is its block's ``time`` as the guest reported it (``end - start``, in ms); a block the
guest did not time (a skipped test, a spec that did not report) has none and is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from astest_tasks.core.errors import UserError
from astest_tasks.core.frozen import frozen
from astest_tasks.core.guest_text import inert_field
from astest_tasks.model.guest_report import Suite
from astest_tasks.output.ansi import Style
from astest_tasks.output.console import Shown, format_seconds
from astest_tasks.output.terminal import Palette


@frozen
class Timed:
    seconds: float
    mode: str
    name: str  # the spec file, or the spec id and the test's path


def slowest_specs(shown: Sequence[Shown], count: int) -> list[Timed]:
    timed = [Timed(i.result.duration_s, i.result.mode, i.result.spec) for i in shown]
    return _slowest(timed, count)


def slowest_tests(shown: Sequence[Shown], count: int) -> list[Timed]:
    from astest_tasks.model.test_cases import block_ms  # only when --durations asks (issue 40)

    timed = [
        Timed(seconds, item.result.mode, f"{item.result.spec_id} > {path}")
        for item in shown
        for path, seconds in _test_times(item.result.suites, (), block_ms)
    ]
    return _slowest(timed, count)


def _slowest(timed: list[Timed], count: int) -> list[Timed]:
    ranked = sorted(timed, key=lambda t: (-t.seconds, t.name, t.mode))
    return ranked if count == 0 else ranked[:count]


def _test_times(
    suites: Sequence[Suite], path: tuple[str, ...], block_ms: Callable[[Suite], float | None]
) -> Iterator[tuple[str, float]]:
    for suite in suites:
        suite_path = (*path, suite.description)
        ms = block_ms(suite)
        if ms is not None:
            yield " > ".join(suite_path), ms / 1000
        yield from _test_times(suite.suites, suite_path, block_ms)


def duration_lines(shown: Sequence[Shown], count: int, palette: Palette) -> list[str]:
    """The sections, each after a blank line; ``count`` 0 lists every spec and test."""
    lines: list[str] = []
    for what, timed in (
        ("specs", slowest_specs(shown, count)),
        ("tests", slowest_tests(shown, count)),
    ):
        if not timed:
            continue
        title = f"slowest {count} durations ({what})" if count else f"slowest durations ({what})"
        mode_width = max(len(t.mode) for t in timed)
        lines += ["", palette.paint(title, Style.BRIGHT)]
        lines += [
            f"  {duration_text(t.seconds).rjust(8)}  {t.mode.ljust(mode_width)}  "
            f"{inert_field(t.name)}"
            for t in timed
        ]
    return lines


def duration_text(seconds: float) -> str:
    """The summary's own format, with a decimal under 10 ms: a test block often takes less
    than a millisecond, and "0 ms" for each would rank nothing."""
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    return format_seconds(seconds)


def parse_durations(text: str) -> int | None:
    """The option's value: None when not given, else how many of each to list (0: all)."""
    text = str(text).strip()
    if not text:
        return None
    if not text.isdigit():
        raise UserError(
            f"--durations {text!r} is not a count; fix: write e.g. `--durations=10` for the ten "
            "slowest specs and tests, or `--durations=0` for all"
        )
    return int(text)
