"""coverage_threshold.py: --coverage-fail-under's floors, read and checked as coverage.py's
fail_under is (at the printed precision, 100 exact), each failing line naming the files."""

from __future__ import annotations

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.coverage.model import CoveragePoint, merge_points
from astest_tasks.output.coverage_summary import CoverageOutcome, CoverageTarget, ModeCoverage
from astest_tasks.output.coverage_threshold import (
    CoverageFloor,
    CoverageThreshold,
    check_threshold_modes,
    is_below,
    threshold_failures,
)


def points(file: str, covered: int, total: int) -> list[CoveragePoint]:
    return [CoveragePoint(f"{file}{i}", file, i + 1, 1, "Block", i < covered) for i in range(total)]


def outcome() -> CoverageOutcome:
    """wasi covers a.ts 1/4, b.ts 3/4, c.ts 4/4; web covers c.ts only: 8/12 in total."""
    wasi = merge_points([points("a.ts", 1, 4) + points("b.ts", 3, 4)], lambda p: True)
    web = merge_points([points("c.ts", 4, 4)], lambda p: True)
    total = merge_points([[p for f in (*wasi.files, *web.files) for p in f.points]], lambda p: True)
    modes = (
        ModeCoverage(CoverageTarget("wasi", "cov/wasi"), wasi, ()),
        ModeCoverage(CoverageTarget("web", "cov/web"), web, ()),
    )
    return CoverageOutcome(total=total, modes=modes)


def test_a_number_is_the_total_and_mode_entries_add_floors() -> None:
    assert CoverageThreshold.parse("80").floors == (CoverageFloor("", 80.0),)
    assert CoverageThreshold.parse(" 80 , web=60.5").floors == (
        CoverageFloor("", 80.0),
        CoverageFloor("web", 60.5),
    )
    assert CoverageThreshold.parse("wasi=90").modes == ("wasi",)
    assert not CoverageThreshold.parse("")


@pytest.mark.parametrize("text", ["eighty", "101", "-1", "nan", "wasi="])
def test_a_bad_percentage_is_one_error_with_its_fix(text: str) -> None:
    with pytest.raises(UserError) as raised:
        CoverageThreshold.parse(text)
    message = str(raised.value)
    assert message.startswith(f"--coverage-fail-under {text!r}: ")
    assert (
        "is not a percentage from 0 to 100; fix: write e.g. `--coverage-fail-under=80`" in message
    )


def test_the_total_below_its_floor_names_the_files_furthest_below() -> None:
    lines = threshold_failures(outcome(), CoverageThreshold.parse("70"))
    assert lines == [
        "total coverage 66.67% is below 70% (--coverage-fail-under=70); furthest below: "
        "a.ts 25.00% (1/4 points)"
    ]
    assert threshold_failures(outcome(), CoverageThreshold.parse("66.67")) == []


def test_a_mode_floor_counts_only_that_modes_points() -> None:
    lines = threshold_failures(outcome(), CoverageThreshold.parse("50,wasi=80,web=100"))
    assert lines == [
        "coverage of mode wasi 50.00% is below 80% (--coverage-fail-under wasi=80); furthest "
        "below: a.ts 25.00% (1/4 points), b.ts 75.00% (3/4 points)"
    ]


def test_compared_at_two_decimals_but_100_means_every_point() -> None:
    assert not is_below(79.996, 80)  # printed as 80.00
    assert is_below(79.994, 80)
    assert is_below(99.999, 100) and not is_below(100.0, 100)


def test_a_floor_that_cannot_be_checked_stops_the_plan() -> None:
    check_threshold_modes(CoverageThreshold(), [])  # no option: nothing to check
    with pytest.raises(UserError, match=r"needs coverage, and no selected mode has it on; fix"):
        check_threshold_modes(CoverageThreshold.parse("80"), [])
    with pytest.raises(UserError) as raised:
        check_threshold_modes(CoverageThreshold.parse("wsai=80"), ["wasi", "web"])
    assert str(raised.value) == (
        "--coverage-fail-under wsai=...: mode 'wsai' has no coverage this run (modes with "
        "coverage: wasi, web); fix: name one of those, or give a plain number for the total"
    )
