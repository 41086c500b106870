"""The options of what the summary shows and how it decides: declared here
(core/option_declarations.py says how) and handed to the summary whole, inside its plan
(``SummaryPlan.report``). A field declared ``printout_only`` changes what is printed (or the
verdict), not the reports, so changing it alone leaves the reports as they are."""

from __future__ import annotations

from astest_tasks.config.selection import selector_names
from astest_tasks.core.frozen import frozen
from astest_tasks.core.option_declarations import OptionDoc, option
from astest_tasks.output.coverage_threshold import CoverageThreshold
from astest_tasks.output.durations import parse_durations


def _checked_test_name_pattern(text: str) -> str:
    if text:  # the filter's module, and what it counts with, loads only for a pattern
        from astest_tasks.output.test_name_filter import compile_test_name_pattern

        compile_test_name_pattern(text)  # a bad expression stops here, with its fix
    return text


@frozen
class ReportOptions:
    """Which suites and tests are reported, and what the summary adds to its lines."""

    suite: tuple[str, ...] = option(
        "",
        "comma-separated suites to report, as as-test's --suite: a path of slugified "
        "descriptions (`parent/child`) or a bare leaf name; specs still run whole",
        parse=selector_names,
        doc=OptionDoc(
            flag="`--suite a,b/c`",
            env="`ASTEST_SUITE`",
            default="every suite",
            meaning=(
                "suites to report, as as-test's `--suite`: a path of slugified descriptions "
                "(`array-check`, `parent/child`) or a bare last part; the specs still run "
                "whole (and stay cached), a selected suite is shown with everything inside it"
            ),
        ),
    )
    test_name_pattern: str = option(
        "",
        "report only the tests whose full name (`describe > test`) matches this regular "
        "expression, as jest's -t; the others count as skipped, and specs still run whole",
        short="t",
        parse=_checked_test_name_pattern,
        doc=OptionDoc(
            flag="`--test-name-pattern=REGEX` (`-t`)",
            env="`ASTEST_TEST_NAME_PATTERN`",
            default="every test",
            meaning=(
                "report only the tests whose full name (`describe > test`, as failures are "
                "titled) matches the regular expression, as jest's `-t`; the others count as "
                "skipped (as an `xtest` would, by the installed as-test's counting) and the "
                "verdict follows the rest. as-test has no way to skip a test from outside the "
                "guest, so the spec still runs whole (a crash still fails it) and stays "
                "cached whole: changing the pattern re-runs nothing, and the next run without "
                "it shows every test again"
            ),
        ),
    )
    verbose: bool = option(
        False,
        "list every suite and test (with its log() lines) under its spec's line in the "
        "summary, as as-test 1.8's --verbose",
        doc=OptionDoc(
            flag="`--verbose`",
            env="`ASTEST_VERBOSE=1`",
            default="off",
            meaning=(
                "list every suite and test of each spec, indented under its line in the "
                "summary, with its verdict and its `log()` lines, as as-test 1.8's "
                "`--verbose`"
            ),
        ),
        printout_only=True,
    )
    show_logs: bool = option(
        False,
        "print every log() line of the run's specs before the summary, grouped by spec, as "
        "as-test 1.8's --show-logs (they are always in the logs folder's latest.log)",
        doc=OptionDoc(
            flag="`--show-logs`",
            env="`ASTEST_SHOW_LOGS=1`",
            default="off",
            meaning=(
                "print every `log()` line of the run's specs before the summary, one block "
                "per spec with the modes that logged the same lines, as as-test 1.8's "
                "`--show-logs`; the same text is always in `latest.log` in the logs folder "
                "(`.as-test/logs/latest.log`), rewritten when a result changed and removed "
                "when no spec logged anything"
            ),
        ),
        printout_only=True,
    )
    durations: int | None = option(
        "",
        "after the summary, list the N slowest specs and the N slowest tests (0: all), as "
        "pytest's --durations",
        parse=parse_durations,
        doc=OptionDoc(
            flag="`--durations=N`",
            env="`ASTEST_DURATIONS`",
            default="off",
            meaning=(
                "after the failures and coverage, list the `N` slowest specs (their run "
                "times, cached ones included) and the `N` slowest tests (each `test`/`it` "
                "block's time as the spec reported it), as pytest's `--durations` (`slowest N "
                "durations`; `0` lists all); before the totals, so the tests line stays last. "
                "Coloured on a terminal, plain in a pipe"
            ),
        ),
        printout_only=True,
    )
    coverage_fail_under: CoverageThreshold = option(
        "",
        "fail the run when the total coverage (every covered mode merged, as the summary "
        "prints it) is below PCT, as coverage.py's fail_under; `mode=PCT` entries add one "
        "mode's own floor, e.g. `--coverage-fail-under=80,web=60`",
        parse=CoverageThreshold.parse,
        doc=OptionDoc(
            flag="`--coverage-fail-under=PCT`",
            env="`ASTEST_COVERAGE_FAIL_UNDER`",
            default="no floor",
            meaning=(
                "fail the run when the total coverage (every covered mode's points merged: "
                "the percentage the summary prints) is below `PCT`, as coverage.py's "
                "`fail_under` is a floor for its report's total; `mode=PCT` entries add a "
                "floor for one mode's own points (`80,web=60`, or `wasi=90` alone). Compared "
                "at the summary's two decimals, 100 exactly; the failing line names the files "
                "furthest below (see [Coverage](coverage.md#a-coverage-floor)). An entry for "
                "a mode without coverage this run, or no coverage at all, stops the run with "
                "the fix"
            ),
        ),
        printout_only=True,
    )
