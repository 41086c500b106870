"""verbose_tree.py: --verbose lists every block under its spec, indented, with its logs."""

from __future__ import annotations

from astest_tasks.model.guest_report import Verdict
from astest_tasks.output.console import Shown, render_summary
from astest_tasks.output.terminal import Palette
from astest_tasks.output.verbose_tree import tree_lines
from tests.conftest import make_expectation, make_spec_result, make_suite


def test_each_block_is_a_line_under_its_parent_with_its_verdict_and_logs() -> None:
    inner = make_suite("adds", make_expectation(), logs=('"one"',))
    skipped = make_suite("later", kind="xtest", verdict=Verdict.SKIP)
    failing = make_suite("breaks", make_expectation(Verdict.FAIL))
    suites = (make_suite("math", kind="describe", children=(inner, skipped, failing)),)
    assert list(tree_lines(suites, Palette(enabled=False))) == [
        "     FAIL  math",
        "       PASS  adds",
        '        LOG "one"',
        "       SKIP  later",
        "       FAIL  breaks",
    ]
    shown = [Shown(result=make_spec_result(suites=suites), cached=False)]
    plain = render_summary(shown, Palette(enabled=False))
    verbose = render_summary(shown, Palette(enabled=False), verbose=True)
    assert "PASS  adds" not in plain and "       PASS  adds" in verbose
    assert verbose.rstrip().splitlines()[-1].startswith("tests: ")


def test_a_huge_name_or_log_line_is_cut_at_the_other_reports_sizes() -> None:
    huge_log = "L" * 1_000_000
    suites = (make_suite("N" * 4_000_000, make_expectation(), logs=(huge_log,)),)
    block, log = list(tree_lines(suites, Palette(enabled=False)))
    assert block == f"     PASS  {'N' * 1_000}… (3999000 more characters)"
    assert log == f"      LOG {'L' * 2_000}… (998000 more characters)"
