"""What a user sees: the summary, its last line, colours, failure details and the exit code."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.integration.conftest import ANSI, DoitRun, Project, clone_project, passing_tests_line
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration


def totals_line(project: Project) -> str:
    tests = project.report()["totals"]["tests"]
    return f"tests: {tests['passed']} passed, {tests['failed']} failed, {tests['skipped']} skipped"


def test_all_green_exits_zero_and_ends_with_the_totals_line(
    built_passing: tuple[Project, DoitRun], toolchain: Toolchain
) -> None:
    project, run = built_passing
    assert run.exit_code == 0
    assert run.last_line == totals_line(project)
    assert run.last_line == passing_tests_line(toolchain)
    assert ANSI.search(run.stdout) is None, "no colour codes in a pipe"
    for spec_id in ("geometry", "skips", "snap", "left/shared", "right/shared"):
        for mode in ("wasi", "bindings"):
            assert any(
                line.startswith(" PASS ") and f" {mode} " in line and f" {spec_id} " in line
                for line in run.stdout.splitlines()
            ), f"no PASS line for {spec_id} [{mode}]"


def test_failures_exit_non_zero_with_details_and_still_end_with_the_totals_line(
    built_failing: tuple[Project, DoitRun],
) -> None:
    project, run = built_failing
    assert run.exit_code == 1
    assert run.last_line == totals_line(project)
    out = run.stdout
    # assertion failures show matcher, expected and actual
    assert "assertions > wrong number#1 (assembly/__tests__/assertions.spec.ts:8:5)" in out
    assert "expected: 5" in out and "received: 4" in out
    assert 'expected: "right-value"' in out and 'received: "left-value"' in out
    # snapshot mismatch and missing snapshot
    assert 'expected: "old-value"' in out and 'received: "new-value"' in out
    assert 'expected: "<missing snapshot>"' in out
    # the abort, with what ran before it
    assert "abort: kaboom in assembly/__tests__/abort.spec.ts(8:5)" in out
    assert "finished before it stopped: abort > before the crash (ok)" in out
    # the compile error with the compiler's message and a command that reproduces it
    assert "TS2322" in out
    assert "reproduce with:" in out
    assert "asc.js assembly/__tests__/broken.spec.ts --transform as-test/transform" in out
    # the infinite loop
    assert "test runtime timed out after 2 s" in out
    assert "Traceback" not in out + run.stderr


def test_the_compile_repro_command_really_reproduces_the_error(
    built_failing: tuple[Project, DoitRun], tmp_path: Path, toolchain: Toolchain
) -> None:
    import shlex
    import subprocess

    project, _ = built_failing
    entry = project.spec_report("assembly/__tests__/broken.spec.ts", "wasi")
    command = entry["build_command"]
    # as-test 1.3+ also puts the mode's name into the build env (for its mode() helper).
    mode_name = "AS_TEST_MODE_NAME=wasi " if toolchain.is_1_8 else ""
    assert command.startswith(f"AS_TEST_COVERAGE_ENABLED=0 {mode_name}node ")
    proc = subprocess.run(
        ["bash", "-c", command], cwd=project.root, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0
    assert "TS2322" in proc.stdout + proc.stderr
    assert shlex.split(command)[-1] == ".as-test/build/wasi/broken.spec.wasm"


def test_colour_on_request_and_cached_results_still_shown(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, toolchain: Toolchain
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    run = project.doit(env={"FORCE_COLOR": "1"})
    assert run.exit_code == 0
    assert ANSI.search(run.stdout) is not None
    assert run.stdout.count("(cached)") == 10
    assert run.last_line == passing_tests_line(toolchain), "the last line stays plain"


def test_report_json_lists_every_spec_and_mode_with_cached_flags(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    (project.root / ".as-test/report-state.json").unlink()  # else nothing changed: no rewrite
    project.doit()
    report = project.report()
    assert report["totals"]["cached"] == 10
    entry = project.spec_report("assembly/__tests__/geometry.spec.ts", "wasi")
    assert entry["cached"] is True
    assert entry["verdict"] == "passed"
    assert entry["counts"]["tests_passed"] == 6


@pytest.mark.parametrize("fixture", ["built_passing", "built_failing"])
def test_junit_and_tap_agree_with_the_summary_and_include_cached_results(
    fixture: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    import junitparser
    from tap.parser import Parser as TapParser

    built: tuple[Project, DoitRun] = request.getfixturevalue(fixture)
    project = clone_project(built[0], tmp_path)
    # Forget the reports' state, so that they are written again, from cached results.
    (project.root / ".as-test/report-state.json").unlink()
    # The same timeout as the build fixture (it is part of the run key): passing specs stay cached.
    run = project.doit(env={"ASTEST_TIMEOUT": "2"} if fixture == "built_failing" else {})
    totals = project.report()["totals"]["tests"]
    if fixture == "built_passing":
        assert project.report()["totals"]["cached"] == len(project.report()["specs"])

    xml = junitparser.JUnitXml.fromfile(str(project.root / ".as-test/junit.xml"))
    expectations = {"passed": 0, "failed": 0, "skipped": 0}
    for suite in xml:
        for prop in suite.properties():  # type: ignore[no-untyped-call]
            expectations[prop.name.removeprefix("expectations.")] += int(prop.value)
        cases = list(suite)
        assert suite.tests == len(cases)
        assert suite.failures == sum(
            1 for case in cases if not case.is_passed and not case.is_skipped
        )
    assert expectations == totals
    assert len(list(xml)) == len(project.report()["specs"])
    failed_specs = sum(1 for spec in project.report()["specs"] if spec["verdict"] == "failed")
    assert sum(1 for suite in xml if suite.failures) == failed_specs

    tap_text = (project.root / ".as-test/reports/report.tap").read_text()
    lines = list(TapParser().parse_text(tap_text))
    results = [line for line in lines if line.category == "test"]
    plan = next(line for line in lines if line.category == "plan")
    assert plan.expected_tests == len(results) == xml.tests
    assert sum(1 for r in results if not r.ok) == xml.failures
    expected = f"# expectations {totals['passed']} passed, {totals['failed']} failed, "
    assert expected + f"{totals['skipped']} skipped" in tap_text.splitlines()
    assert run.last_line == totals_line(project)


def test_crashes_leave_records_and_assertion_failures_do_not(
    built_failing: tuple[Project, DoitRun],
) -> None:
    project, run = built_failing
    crashes = project.root / ".as-test" / "crashes"
    for spec in ("abort", "broken", "hang"):
        for mode in ("wasi", "bindings"):
            record = json.loads((crashes / f"{spec}.spec.{mode}.json").read_text())
            assert record["file"] == f"assembly/__tests__/{spec}.spec.ts"
            assert record["reproCommand"]
            assert f"crash record: .as-test/crashes/{spec}.spec.{mode}.log" in run.stdout
    assert record["stage"] == "run"
    assert json.loads((crashes / "broken.spec.wasi.json").read_text())["stage"] == "build"
    assert not list(crashes.glob("assertions.spec.*"))


def test_every_spec_and_mode_leaves_a_readable_log(built_failing: tuple[Project, DoitRun]) -> None:
    project, _ = built_failing
    logs = project.root / ".as-test" / "logs"
    for spec in ("abort", "assertions", "broken", "hang", "snapshots"):
        for mode in ("wasi", "bindings"):
            text = (logs / mode / f"{spec}.spec.log").read_text()
            assert f"FAIL  assembly/__tests__/{spec}.spec.ts" in text
    assertions = (logs / "wasi" / "assertions.spec.log").read_text()
    assert "Expected: " in assertions and "Received: " in assertions


def test_each_finished_spec_gets_a_live_line_with_its_place(
    built_passing: tuple[Project, DoitRun],
) -> None:
    _, run = built_passing
    live = [line for line in ANSI.sub("", run.stderr).splitlines() if line.startswith("[")]
    assert len(live) == 10
    assert live[0].startswith("[1/10]  PASS  wasi")
    assert live[-1].startswith("[10/10]  PASS  bindings")


HELD_BACK_RUNNER = """\
import json, os, time
from pathlib import Path
from astest_tasks.runner import instantiate


def finished_specs(counter):
    try:
        return json.loads(counter.read_text())["finished"]
    except (OSError, ValueError, KeyError):
        return 0


counter = os.environ.get("HOLD_GEOMETRY_UNTIL_A_SPEC_FINISHES_IN")
if counter and os.environ["AS_TEST_WASM_PATH"].endswith("geometry.spec.wasm"):
    # the first run task finishes after another: it waits until the live-line counter has
    # counted a spec (an event, not a guess at how long the others take)
    deadline = time.monotonic() + 120
    while finished_specs(Path(counter)) < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
instantiate({}).start()
"""
PROGRESS_COUNTER = ".as-test/cache/progress.json"  # where the live lines are counted


@pytest.mark.parametrize("parallel", [["-n", "2"], ["-n", "2", "-P", "thread"]])
def test_live_lines_under_parallel_workers_count_specs_in_the_order_they_finish(
    built_passing: tuple[Project, DoitRun], tmp_path: Path, parallel: list[str]
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    (project.root / ".as-test/runners/default.wasi.py").write_text(HELD_BACK_RUNNER)
    counter = project.root / PROGRESS_COUNTER
    counter.unlink()  # the built project's count: held back, geometry would wait for this run's
    env = {"ASTEST_TIMEOUT": "29"}
    if "thread" not in parallel:
        # Threads take turns at in-process runners (they share os.environ): a held-back spec
        # would hold the other thread back too, so only separate processes hold it.
        env["HOLD_GEOMETRY_UNTIL_A_SPEC_FINISHES_IN"] = str(counter)
    # The runner re-runs the five wasi specs; a new timeout, part of every run task's key, the
    # five bindings ones. Nothing is rebuilt.
    run = project.doit(*parallel, env=env)
    assert run.exit_code == 0, run.stdout + run.stderr
    live = [line for line in ANSI.sub("", run.stderr).splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in live] == [f"[{k}/10" for k in range(1, 11)]
    if "thread" not in parallel:
        first = live[0].split()
        assert first[2:4] != ["wasi", "geometry"], "the held-back spec should finish after another"
    again = project.doit(*parallel, env={"ASTEST_TIMEOUT": "28"})
    assert [line for line in again.stderr.splitlines() if line.startswith("[1/10]")]


def test_verbose_lists_every_test_under_its_spec(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("failing")
    run = project.doit("astest", "--verbose", "--spec", "assertions", "--mode", "wasi")
    assert run.exit_code == 1, run.stdout
    lines = [line.rstrip() for line in run.stdout.splitlines()]
    spec_line = next(i for i, line in enumerate(lines) if line.startswith(" FAIL  wasi"))
    assert lines[spec_line + 1 : spec_line + 5] == [
        "     FAIL  assertions",
        "       PASS  passes",
        "       FAIL  wrong number",
        "       FAIL  wrong string",
    ]
    assert run.last_line.startswith("tests: ")


def test_verbose_alone_rewrites_no_report(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("passing")
    assert project.doit("astest", "--mode", "wasi").exit_code == 0
    report = project.root / ".as-test" / "report.json"
    before = report.stat().st_mtime_ns
    verbose = project.doit("astest", "--mode", "wasi", "--verbose")
    assert verbose.exit_code == 0, verbose.stdout
    assert "     PASS  geometry" in verbose.stdout, verbose.stdout
    assert report.stat().st_mtime_ns == before, "only the printout changes"
