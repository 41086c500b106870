"""durations.py: --durations=N lists the slowest specs and tests as pytest's --durations does."""

from __future__ import annotations

from dataclasses import replace

import pytest

from astest_tasks.core.errors import UserError
from astest_tasks.model.guest_report import Suite
from astest_tasks.output.console import Shown
from astest_tasks.output.durations import (
    duration_lines,
    duration_text,
    parse_durations,
    slowest_specs,
    slowest_tests,
)
from astest_tasks.output.terminal import Palette, strip_colour
from tests.conftest import make_expectation, make_spec_result, make_suite


def timed(suite: Suite, start_ms: float, end_ms: float) -> Suite:
    return replace(suite, start_ms=start_ms, end_ms=end_ms)


def shown() -> list[Shown]:
    """math: 2.5 s (a test of 1.2 s and one of 0.3 s, in a describe); io: 0.7 s, untimed tests;
    math in bindings: 0.1 s, cached."""
    tests = (
        timed(make_suite("adds", make_expectation()), 0, 1200),
        timed(make_suite("skipped", kind="xtest"), 0, 0),
        timed(make_suite("carries", make_expectation(), kind="it"), 1200, 1500),
    )
    describe = timed(make_suite("math", kind="describe", children=tests), 0, 2000)
    math = make_spec_result("math", suites=(describe,), duration_s=2.5)
    untimed = timed(make_suite("reads", make_expectation()), 0, 0)
    io = make_spec_result("io", suites=(untimed,), duration_s=0.7)
    cached = make_spec_result("math", mode="bindings", duration_s=0.1)
    return [Shown(io, False), Shown(math, False), Shown(cached, True)]


def test_specs_and_tests_each_slowest_first() -> None:
    specs = slowest_specs(shown(), 2)
    assert [(t.name, t.mode, t.seconds) for t in specs] == [
        ("assembly/__tests__/math.spec.ts", "wasi", 2.5),
        ("assembly/__tests__/io.spec.ts", "wasi", 0.7),
    ]
    # Only test blocks the guest timed; the describe around them is not a test.
    tests = slowest_tests(shown(), 0)
    assert [(t.name, t.seconds) for t in tests] == [
        ("math > math > adds", 1.2),
        ("math > math > carries", 0.3),
    ]


def test_the_sections_read_as_pytests_and_stand_plain_in_a_pipe() -> None:
    lines = duration_lines(shown(), 2, Palette(enabled=False))
    assert lines == [
        "",
        "slowest 2 durations (specs)",
        "    2.50 s  wasi  assembly/__tests__/math.spec.ts",
        "    700 ms  wasi  assembly/__tests__/io.spec.ts",
        "",
        "slowest 2 durations (tests)",
        "    1.20 s  wasi  math > math > adds",
        "    300 ms  wasi  math > math > carries",
    ]
    every = duration_lines(shown(), 0, Palette(enabled=False))
    assert "slowest durations (specs)" in every and len(every) == 1 + 4 + 1 + 2 + 1
    coloured = duration_lines(shown(), 2, Palette(enabled=True))
    assert coloured != lines and "\x1b[" in coloured[1]
    assert [strip_colour(line) for line in coloured] == lines


def test_short_times_keep_a_decimal() -> None:
    assert [duration_text(s) for s in (0.00042, 0.0095, 0.25, 3.0)] == [
        "0.4 ms",
        "9.5 ms",
        "250 ms",
        "3.00 s",
    ]


def test_the_option_is_a_count() -> None:
    assert parse_durations("") is None
    assert parse_durations(" 10 ") == 10 and parse_durations("0") == 0
    with pytest.raises(UserError) as raised:
        parse_durations("ten")
    assert str(raised.value) == (
        "--durations 'ten' is not a count; fix: write e.g. `--durations=10` for the ten slowest "
        "specs and tests, or `--durations=0` for all"
    )
