"""Our verdicts and counts agree with as-test 1.0.7's own CLI on the same fixture specs.

The reference numbers come from `npx ast test` (see tests/tools/record_reference.py, which
records the exact command with each number in tests/fixtures/<name>/reference.json).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.conftest import DoitRun, Project, reference_runs

pytestmark = pytest.mark.integration


def reference_verdict(reference: dict[str, Any]) -> str:
    files = reference["files"]
    if files["failed"]:
        return "failed"
    if files["passed"]:
        return "passed"
    return "skipped"


def assert_counts_agree(ours: dict[str, Any], reference: dict[str, Any]) -> None:
    where = f"{reference['spec']} [{reference['mode']}] (reference: {reference['command']})"
    assert ours["verdict"] == reference_verdict(reference), where
    counts = ours["counts"]
    for kind in ("suites", "tests"):
        for outcome in ("passed", "failed", "skipped"):
            assert counts[f"{kind}_{outcome}"] == reference[kind][outcome], (
                f"{where}: {kind} {outcome}"
            )


def test_passing_fixture_matches_as_test_spec_by_spec(
    built_passing: tuple[Project, DoitRun],
) -> None:
    project, run = built_passing
    assert run.exit_code == 0, run.stdout + run.stderr
    references = reference_runs("passing")
    for reference in references:
        assert_counts_agree(project.spec_report(reference["spec"], reference["mode"]), reference)
    assert len(project.report()["specs"]) == len(references)


def test_failing_fixture_matches_as_test_where_as_test_finishes(
    built_failing: tuple[Project, DoitRun],
) -> None:
    project, _ = built_failing
    compared = 0
    for reference in reference_runs("failing"):
        if reference.get("finished") and "tests" in reference:
            assert_counts_agree(
                project.spec_report(reference["spec"], reference["mode"]), reference
            )
            compared += 1
    assert compared == 6  # abort, assertions and snapshots, in both modes


def test_build_failure_is_reported_where_as_test_aborts_the_whole_run(
    built_failing: tuple[Project, DoitRun],
) -> None:
    project, _ = built_failing
    for reference in reference_runs("failing"):
        if reference["spec"].endswith("broken.spec.ts"):
            # as-test 1.0.7 stops everything at the first compile error.
            assert reference["exit_code"] == 1 and "compile error" in reference["note"]
            ours = project.spec_report(reference["spec"], reference["mode"])
            assert ours["verdict"] == "failed"
            assert ours["stage"] == "build"
            assert ours["counts"]["tests_failed"] == 1


def test_a_hanging_spec_is_timed_out_where_as_test_never_returns(
    built_failing: tuple[Project, DoitRun],
) -> None:
    project, _ = built_failing
    for reference in reference_runs("failing"):
        if reference["spec"].endswith("hang.spec.ts"):
            assert reference["finished"] is False
            ours = project.spec_report(reference["spec"], reference["mode"])
            assert ours["verdict"] == "failed"
            assert "timed out after 2 s" in ours["error"]
