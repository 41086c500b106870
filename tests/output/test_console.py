"""render_summary and colour selection: what a person (and a CI script) reads after a run."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from astest_tasks.coverage.model import CoveragePoint, merge_points
from astest_tasks.model.counting import count, failures
from astest_tasks.model.guest_report import Counts, FailureDetail, runtime_error_suite
from astest_tasks.model.results import SpecResult, Stage, Status
from astest_tasks.output.console import Shown, live_line, render_changed, render_summary
from astest_tasks.output.terminal import Palette, use_colour
from tests.conftest import make_spec_result

ESC = "\x1b["
PLAIN = Palette(enabled=False)


def result(
    spec_id: str,
    status: Status = Status.PASSED,
    *,
    counts: Counts | None = None,
    failure_list: tuple[FailureDetail, ...] = (),
    stage: Stage = Stage.RUN,
    mode: str = "wasi",
    error: str = "",
    warnings: tuple[str, ...] = (),
    output: str = "",
    duration_s: float = 0.25,
) -> SpecResult:
    return make_spec_result(
        spec_id,
        status,
        mode=mode,
        target="wasi",
        stage=stage,
        counts=counts or Counts(1, 0, 0, 3, 0, 0, 1.0),
        failure_list=failure_list,
        duration_s=duration_s,
        session="now",
        error=error,
        warnings=warnings,
        output=output,
    )


def failed_assertion() -> SpecResult:
    detail = FailureDetail(
        title="math > adds#2",
        location="14:9",
        matcher="toBe",
        expected="4",
        actual="5",
        message="off by one",
    )
    return result(
        "math",
        Status.FAILED,
        counts=Counts(0, 1, 0, 1, 1, 0, 1.0),
        failure_list=(detail,),
        output="debug print\n",
    )


def build_failure(message: str = "ERROR TS2304: Cannot find name 'nope'.") -> SpecResult:
    suites = (runtime_error_suite("broken.spec.ts", "build failed", message, "", ""),)
    return result(
        "broken",
        Status.FAILED,
        counts=count(suites),
        failure_list=tuple(failures(suites)),
        stage=Stage.BUILD,
        error="build failed",
    )


def mixed() -> list[Shown]:
    return [
        Shown(result("array", counts=Counts(2, 0, 0, 4, 0, 0, 1.0)), cached=False),
        Shown(failed_assertion(), cached=True),
        Shown(
            result("skipped", Status.SKIPPED, counts=Counts(0, 0, 1, 0, 0, 2, 0.0)), cached=False
        ),
        Shown(build_failure(), cached=False),
    ]


# -- summary text ----------------------------------------------------------------------------------


def test_a_watch_cycle_shows_only_what_it_ran_and_the_totals_over_everything() -> None:
    text = render_changed(mixed(), PLAIN)
    lines = text.splitlines()
    spec_lines = [line.split() for line in lines if line.startswith((" PASS", " SKIP", " FAIL"))]
    assert [words[2] for words in spec_lines if words[1] == "wasi"] == [
        "array",
        "skipped",
        "broken",
    ]
    assert " math " not in text and "(cached)" not in text  # the cached failure is left out
    assert "Cannot find name 'nope'" in text  # a fresh failure's details
    assert lines[-3].startswith("files: 1 passed, 2 failed, 1 skipped (1 cached)")
    assert lines[-1] == render_summary(mixed(), PLAIN).splitlines()[-1]


def test_a_watch_cycle_that_ran_nothing_is_its_totals() -> None:
    cached = [replace(item, cached=True) for item in mixed()]
    assert render_changed(cached, PLAIN).splitlines()[0].startswith("files: ")


def test_last_line_is_the_plain_test_totals() -> None:
    text = render_summary(mixed(), PLAIN)
    assert text.endswith("\n")
    assert text.splitlines()[-1] == "tests: 5 passed, 2 failed, 2 skipped"


def test_last_line_stays_plain_even_with_colour() -> None:
    text = render_summary(mixed(), Palette(enabled=True))
    assert text.splitlines()[-1] == "tests: 5 passed, 2 failed, 2 skipped"


def test_file_and_suite_totals_precede_the_test_totals() -> None:
    lines = render_summary(mixed(), PLAIN).splitlines()
    assert lines[-3] == "files: 1 passed, 2 failed, 1 skipped (1 cached)"
    assert lines[-2] == "suites: 2 passed, 2 failed, 1 skipped"


def test_each_spec_gets_one_aligned_line_with_its_counts() -> None:
    lines = render_summary(mixed(), PLAIN).splitlines()
    assert lines[0] == " PASS  wasi  array    4 passed, 0 failed, 0 skipped  250 ms"
    assert lines[2].startswith(" SKIP  wasi  skipped  0 passed, 0 failed, 2 skipped")
    assert lines[3].startswith(" FAIL  wasi  broken   build failed  ")


def test_cached_results_are_marked() -> None:
    lines = render_summary(mixed(), PLAIN).splitlines()
    assert lines[1].startswith(" FAIL  wasi  math ")
    assert lines[1].endswith("(cached)")
    assert "(cached)" not in lines[0]


def test_no_cached_note_when_everything_is_fresh() -> None:
    text = render_summary([Shown(result("a"), cached=False)], PLAIN)
    assert "cached" not in text
    assert text.splitlines()[-3] == "files: 1 passed, 0 failed, 0 skipped"


def test_durations_of_a_second_or_more_are_shown_in_seconds() -> None:
    text = render_summary([Shown(result("slow", duration_s=2.5), cached=False)], PLAIN)
    assert "2.50 s" in text.splitlines()[0]


def test_plain_palette_writes_no_escape_sequences() -> None:
    assert ESC not in render_summary(mixed(), PLAIN)


def test_enabled_palette_colours_badges_and_failures() -> None:
    text = render_summary(mixed(), Palette(enabled=True))
    assert ESC in text
    first = text.splitlines()[0]
    assert first.startswith(ESC)
    assert " PASS " in first


def test_failure_details_show_location_expected_and_received() -> None:
    text = render_summary(mixed(), PLAIN)
    assert "Failures" in text
    assert " FAIL  assembly/__tests__/math.spec.ts [wasi]" in text
    assert "  math > adds#2 (assembly/__tests__/math.spec.ts:14:9)" in text
    assert "    matcher:  toBe" in text
    assert "    expected: 4" in text
    assert "    received: 5" in text
    assert "    message:  off by one" in text


def test_failed_spec_output_is_shown_below_its_failures() -> None:
    lines = render_summary([Shown(failed_assertion(), cached=False)], PLAIN).splitlines()
    at = lines.index("    output:")
    assert lines[at + 1] == "      debug print"


def test_build_failure_shows_its_compiler_message() -> None:
    text = render_summary([Shown(build_failure(), cached=False)], PLAIN)
    assert " FAIL  assembly/__tests__/broken.spec.ts [wasi]" in text
    assert "    build failed" in text
    assert "    ERROR TS2304: Cannot find name 'nope'." in text
    assert "expected:" not in text
    assert text.splitlines()[-1] == "tests: 0 passed, 1 failed, 0 skipped"


def test_passing_specs_have_no_failure_section() -> None:
    text = render_summary([Shown(result("a"), cached=False)], PLAIN)
    assert "Failures" not in text


def test_warnings_are_listed_with_spec_and_mode() -> None:
    shown = [Shown(result("warned", warnings=("toThrow() is disabled",)), cached=False)]
    assert " WARN  warned [wasi]: toThrow() is disabled" in render_summary(shown, PLAIN)


def test_what_a_run_wrote_is_said_by_that_run_and_not_again_while_cached() -> None:
    note = "wrote .as-test/snapshots/snap.spec.snap: 0 snapshot(s) created, 1 updated"
    written = replace(result("snap"), written=(note,))
    assert f" WARN  snap [wasi]: {note}" in render_summary([Shown(written, cached=False)], PLAIN)
    assert "wrote" not in render_summary([Shown(written, cached=True)], PLAIN)


def test_empty_summary_still_ends_with_zero_totals() -> None:
    assert render_summary([], PLAIN).splitlines()[-1] == "tests: 0 passed, 0 failed, 0 skipped"


# -- colour selection ------------------------------------------------------------------------------


class FakeStream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return monkeypatch


def test_colour_follows_isatty_by_default(clean_env: pytest.MonkeyPatch) -> None:
    assert use_colour(FakeStream(tty=True))
    assert not use_colour(FakeStream(tty=False))


def test_no_color_turns_colour_off_even_on_a_terminal(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("NO_COLOR", "1")
    assert not use_colour(FakeStream(tty=True))


def test_no_color_wins_over_force_color(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("NO_COLOR", "1")
    clean_env.setenv("FORCE_COLOR", "1")
    assert not use_colour(FakeStream(tty=True))


def test_empty_no_color_is_ignored(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("NO_COLOR", "")
    assert use_colour(FakeStream(tty=True))


def test_force_color_turns_colour_on_in_a_pipe(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("FORCE_COLOR", "1")
    assert use_colour(FakeStream(tty=False))


def test_force_color_zero_turns_colour_off_on_a_terminal(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("FORCE_COLOR", "0")
    assert not use_colour(FakeStream(tty=True))


def test_empty_force_color_falls_back_to_isatty(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("FORCE_COLOR", "")
    assert not use_colour(FakeStream(tty=False))
    assert use_colour(FakeStream(tty=True))


def test_stream_without_isatty_gets_no_colour(clean_env: pytest.MonkeyPatch) -> None:
    class NoTty:
        pass

    assert not use_colour(NoTty())  # type: ignore[arg-type]


def test_colours_inside_compiler_diagnostics_are_dropped_without_colour() -> None:
    coloured = "\x1b[91mERROR\x1b[0m TS2322: Type 'string' is not assignable to type 'i32'."
    broken = result(
        "broken",
        Status.FAILED,
        stage=Stage.BUILD,
        error="build failed",
        failure_list=(
            FailureDetail(  # as counting.failures gives a build failure: no values compared
                title="build failed",
                location="",
                matcher="",
                expected=None,
                actual=None,
                message=coloured,
            ),
        ),
        output=coloured,
    )
    text = render_summary([Shown(result=broken, cached=False)], PLAIN)
    assert ESC not in text
    assert "ERROR TS2322: Type 'string'" in text
    assert coloured in render_summary([Shown(result=broken, cached=False)], Palette(enabled=True))


def test_live_line_shows_progress_and_the_verdict_without_colour_in_a_pipe() -> None:
    line = live_line(result("math", Status.FAILED), 3, 40, PLAIN)
    assert line.startswith("[3/40]  FAIL  wasi  math  ")
    assert ESC not in line
    assert ESC in live_line(result("math", Status.PASSED), 1, 2, Palette(enabled=True))


def test_coverage_block_comes_before_the_totals_and_the_tests_line_stays_last() -> None:
    points = [CoveragePoint("h", "assembly/src/a.ts", 1, 1, "Block", True)]
    coverage = merge_points([points], lambda p: True)
    lines = render_summary(mixed(), PLAIN, coverage).splitlines()
    start = lines.index("Coverage")
    assert lines[start + 1].startswith("  100.00% [============] (1/1 covered")
    assert lines[start - 1] == ""
    assert lines.index("files: 1 passed, 2 failed, 1 skipped (1 cached)") > start
    assert lines[-1].startswith("tests: ")


def test_no_coverage_block_without_coverage() -> None:
    assert "Coverage" not in render_summary(mixed(), PLAIN)


def test_results_from_the_remote_cache_are_marked_and_counted_apart() -> None:
    shown = [
        Shown(result("fresh"), cached=False),
        Shown(result("kept"), cached=True),
        Shown(result("shared"), cached=False, remote=True),
    ]
    lines = render_summary(shown, PLAIN).splitlines()
    assert lines[2].endswith(" (remote)") and "(cached)" not in lines[2]
    assert lines[1].endswith(" (cached)") and not lines[0].endswith(")")
    assert lines[-3] == "files: 3 passed, 0 failed, 0 skipped (1 cached, 1 remote)"


HOSTILE = "::error::x\n  ::warning::y\r##[group]z\x1b]0;title\x07\x9b2J"


def test_names_values_and_warnings_from_a_spec_stay_on_their_lines() -> None:
    plain = failed_assertion()
    detail = plain.failures[0]
    hostile = replace(
        plain,
        spec=f"assembly/__tests__/{HOSTILE}.spec.ts",
        failures=(
            replace(
                detail,
                title=HOSTILE,
                location=HOSTILE,
                matcher=HOSTILE,
                expected=HOSTILE,
                actual=HOSTILE,
                message=HOSTILE,
            ),
        ),
        warnings=(HOSTILE,),
    )

    def lines(item: SpecResult) -> list[str]:
        return render_summary([Shown(item, cached=False)], Palette(False)).splitlines()

    shown = lines(hostile)
    assert len(shown) == len(lines(replace(plain, warnings=("w",)))), "no field broke its line"
    escaped = "::error::x\\n  ::warning::y\\r##[group]z\\x1b]0;title\\x07\\x9b2J"
    assert sum(escaped in line for line in shown) == 7  # path, title, place, values, warning
    assert not any(character in "\r\x1b\x07\x9b" for character in "".join(shown))


def test_what_a_spec_wrote_is_shown_up_to_the_reports_sizes() -> None:
    # A spec may compare a 4 MB value or print 64 MiB before it crashes: the summary, read in a
    # terminal or a CI log, shows the start of each (report.json keeps all of it).
    huge = "x" * 1_000_000
    detail = FailureDetail(
        title="math > big", location="3:1", matcher="toBe", expected=huge, actual=huge, message=huge
    )
    compared = result(
        "math",
        Status.FAILED,
        counts=Counts(0, 1, 0, 0, 1, 0, 1.0),
        failure_list=(detail,),
        output=f"{huge}\nlast line\n",
    )
    suites = (runtime_error_suite("flood.spec.ts", "the module trapped", "trap", huge, ""),)
    crashed = result(
        "flood", Status.FAILED, counts=count(suites), failure_list=tuple(failures(suites))
    )
    text = render_summary([Shown(compared, False), Shown(crashed, False)], PLAIN)
    assert len(text) < 80_000
    assert text.count("more characters in report.json)") == 4  # expected, received, message, crash
    assert "      last line" in text
    assert "(998000 more characters)" in text  # the output's long line


def test_a_compilers_long_message_is_shown_whole() -> None:
    message = "\n".join(f"ERROR TS2304: Cannot find name 'n{i}'." for i in range(2_000))
    text = render_summary([Shown(build_failure(message), cached=False)], PLAIN)
    assert "    ERROR TS2304: Cannot find name 'n1999'." in text
