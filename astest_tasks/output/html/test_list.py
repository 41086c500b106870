"""Every test of every spec on the HTML report, passing and skipped too, as pytest-html's and
Playwright's reports list theirs: per spec one folded section, and in it per mode each test
with its verdict and time.

A test here is a test case of the CI reports (model/test_cases.py: a block of expectations or an
empty test, named by its describe/test path), the same list junit.xml and report.tap hold, so
the three name the same tests; a spec that did not compile lists none and says so.

A big suite must still make a small page: a spec in one mode lists at most
``MAX_TESTS_PER_SPEC`` tests and the page ``MAX_TESTS`` in all, each list saying how many it
left out; names are cut as everywhere (text_caps.cut_name). A section's id is made from its
place on the page (``tests-3``), never from a spec's name, so any name makes a safe anchor.
"""

from __future__ import annotations

from collections.abc import Sequence

from astest_tasks.core.frozen import frozen
from astest_tasks.model.results import SpecResult, Stage, Status
from astest_tasks.model.test_cases import TestCase
from astest_tasks.output.ci_reports import point_status
from astest_tasks.output.console import Shown
from astest_tasks.output.durations import duration_text
from astest_tasks.output.text_caps import cut_name

MAX_TESTS_PER_SPEC = 100  # tests one spec lists in one mode
MAX_TESTS = 400  # tests the page lists in all; report.json holds every one


@frozen
class TestLine:
    __test__ = False  # not a pytest class, whatever its name

    name: str  # the test's path: "describe > test"
    status: str  # passed, failed, skipped
    duration: str  # "" when the guest did not time it (a skipped test)


@frozen
class ModeTests:
    mode: str
    tests: tuple[TestLine, ...]
    count: int  # this spec's tests in this mode, listed or not
    more: int  # of them left out
    build_failed: bool  # no tests to list: the spec did not compile


@frozen
class SpecTests:
    anchor: str  # the section's id, linked from the spec's row in the matrix
    spec: str
    status: str  # the worst of its modes: failed, else passed, else skipped
    modes: tuple[ModeTests, ...]


def spec_anchors(shown: Sequence[Shown]) -> dict[str, str]:
    """Each spec's section id, keyed by its whole name, in the matrix's row order."""
    specs = dict.fromkeys(item.result.spec for item in shown)
    return {spec: f"tests-{number}" for number, spec in enumerate(specs, start=1)}


def spec_tests(
    shown: Sequence[Shown], cases: Sequence[Sequence[TestCase]]
) -> tuple[tuple[SpecTests, ...], int]:
    """The sections, one per spec in row order, and how many tests the page left out."""
    runs: dict[str, list[tuple[SpecResult, Sequence[TestCase]]]] = {}
    for item, spec_cases in zip(shown, cases, strict=True):
        runs.setdefault(item.result.spec, []).append((item.result, spec_cases))
    anchors = spec_anchors(shown)
    room = MAX_TESTS
    sections: list[SpecTests] = []
    for spec, spec_runs in runs.items():
        modes: list[ModeTests] = []
        for result, spec_cases in spec_runs:
            modes.append(_mode_tests(result, spec_cases, room))
            room -= len(modes[-1].tests)
        statuses = {result.status for result, _ in spec_runs}
        sections.append(
            SpecTests(
                anchor=anchors[spec],
                spec=cut_name(spec),
                status=_worst(statuses).value,
                modes=tuple(modes),
            )
        )
    left_out = sum(mode.more for section in sections for mode in section.modes)
    return tuple(sections), left_out


def _mode_tests(result: SpecResult, cases: Sequence[TestCase], room: int) -> ModeTests:
    if result.stage is Stage.BUILD:  # its one made-up case is the compile error, shown above
        return ModeTests(cut_name(result.mode), (), 0, 0, build_failed=True)
    kept = cases[: max(0, min(room, MAX_TESTS_PER_SPEC))]
    return ModeTests(
        mode=cut_name(result.mode),
        tests=tuple(_line(case) for case in kept),
        count=len(cases),
        more=len(cases) - len(kept),
        build_failed=False,
    )


def _line(case: TestCase) -> TestLine:
    seconds = None if case.duration_ms is None else case.duration_ms / 1000
    return TestLine(
        name=cut_name(case.name),
        status=point_status(case).value,
        duration="" if seconds is None else duration_text(seconds),
    )


def _worst(statuses: set[Status]) -> Status:
    for status in (Status.FAILED, Status.PASSED):
        if status in statuses:
            return status
    return Status.SKIPPED
