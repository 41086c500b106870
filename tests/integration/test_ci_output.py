"""What CI reads of a real run (real asc, real as-test of both generations, real wasmtime):
GitHub Actions' annotations and step summary, and --durations' listing after the summary."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.integration.conftest import ANSI, DoitRun, Project, clone_project
from tests.output.github_commands import commands_in
from tests.output.test_step_summary import rendered

pytestmark = pytest.mark.integration


def in_a_repository(project: Project, tmp_path: Path) -> Project:
    """A clone of ``project`` one folder below the root of a git work tree, as a package of a
    monorepo is: annotations must name files from the repository's root."""
    repository = tmp_path / "repo"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    return clone_project(project, repository)


def test_github_actions_gets_an_error_per_failing_expectation_and_a_step_summary(
    built_failing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = in_a_repository(built_failing[0], tmp_path)
    step_summary = tmp_path / "step_summary.md"
    step_summary.write_text("## an earlier step\n")
    env = {
        "ASTEST_TIMEOUT": "2",
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": str(step_summary),
    }

    run = project.doit(env=env)

    assert run.exit_code == 1, run.stdout + run.stderr
    assert run.last_line.startswith("tests: "), "the tests line stays last"
    errors = [c for c in commands_in(run.stdout) if c.name == "error"]
    failures = [
        failure for spec in project.report()["specs"] for failure in spec["result"]["failures"]
    ]
    assert len(errors) == len(failures) > 0
    wrong_number = [
        e.properties
        for e in errors
        if e.properties["title"].startswith("assertions > wrong number")
    ]
    assert wrong_number == [
        {
            "file": "failing/assembly/__tests__/assertions.spec.ts",  # from the repository's root
            "line": "8",
            "col": "5",
            "title": f"assertions > wrong number#1 [{mode}]",
        }
        for mode in ("wasi", "bindings")
    ]
    source = (project.root / "assembly/__tests__/assertions.spec.ts").read_text().splitlines()
    assert "expect(" in source[8 - 1][5 - 1 :], "line and column point at the expectation"
    wrong = next(e for e in errors if e.properties["title"].startswith("assertions > wrong number"))
    assert wrong.data == "matcher: toBe\nexpected: 5\nreceived: 4"

    text = step_summary.read_text()
    assert text.startswith("## an earlier step\n## astest: 10 of 10 spec runs failed\n")
    page = rendered(text)
    totals, failed, _slowest = page.tables
    assert totals[-1] == [
        "tests",
        *run.last_line.removeprefix("tests: ").replace(",", "").split()[::2],
    ]
    assert [
        "assembly/__tests__/assertions.spec.ts",
        "wasi",
        "assertions > wrong number#1",
        "8:5",
        "matcher: toBe expected: 5 received: 4",
    ] in failed
    assert len(failed) == 1 + len(failures)


def test_outside_github_actions_there_is_neither(
    built_failing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_failing[0], tmp_path)
    step_summary = tmp_path / "step_summary.md"
    run = project.doit(env={"ASTEST_TIMEOUT": "2", "GITHUB_STEP_SUMMARY": str(step_summary)})
    assert run.exit_code == 1, run.stdout + run.stderr
    assert "::error" not in run.stdout and not step_summary.exists()


def test_durations_lists_the_slowest_specs_and_tests_before_the_totals(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)

    run = project.doit("astest", "--durations=3")

    assert run.exit_code == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    specs = lines.index("slowest 3 durations (specs)")
    listed = lines[specs + 1 : specs + 4]
    assert len(listed) == 3 and all(line.startswith("  ") for line in listed)
    times = {(s["mode"], s["file"]): s["result"]["duration_s"] for s in project.report()["specs"]}
    slowest = sorted(times.items(), key=lambda item: -item[1])[:3]
    assert [line.split()[-2:] for line in listed] == [[mode, spec] for (mode, spec), _ in slowest]
    # Every spec's test blocks are timed by the guest (both as-test generations report it).
    tests = lines.index("slowest 3 durations (tests)")
    assert tests == specs + 5
    assert all(" > " in line for line in lines[tests + 1 : tests + 4])
    assert not ANSI.search(run.stdout), "no colour in a pipe"
    assert run.last_line.startswith("tests: ") and lines[-4] == "", "the totals stay last"

    coloured = project.doit("astest", "--durations=3", env={"FORCE_COLOR": "1"})
    assert "\x1b[1mslowest 3 durations (specs)" in coloured.stdout
