"""Our verdicts and counts agree with as-test's own CLI of the same version, spec by spec and mode
by mode, measured in the same test run (tests/integration/as_test_cli.py runs `ast test`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.as_test_cli import AsTestRun, run_as_test, run_as_test_per_file
from tests.integration.conftest import DoitRun, Project
from tests.integration.toolchains import Toolchain

pytestmark = pytest.mark.integration


def assert_counts_agree(ours: dict[str, Any], theirs: AsTestRun) -> None:
    where = theirs.where()
    assert theirs.totals, f"{where} printed no totals:\n{theirs.output[-1500:]}"
    assert ours["verdict"] == theirs.verdict, where
    counts = ours["counts"]
    for kind in ("suites", "tests"):
        for outcome in ("passed", "failed", "skipped"):
            assert counts[f"{kind}_{outcome}"] == getattr(theirs.totals[kind], outcome), (
                f"{where}: {kind} {outcome}; ours {counts}, as-test's {theirs.totals}"
            )


# Under 1.8.0, test_as_test_18_agreement.py's test of the passing fixture compares the same
# verdicts and counts, file by file and mode by mode, from one `ast test` of the whole fixture.
@pytest.mark.toolchains("1.0.7")
def test_passing_fixture_matches_as_test_spec_by_spec(
    built_passing: tuple[Project, DoitRun], toolchain: Toolchain, tmp_path: Path
) -> None:
    project, run = built_passing
    assert run.exit_code == 0, run.stdout + run.stderr
    entries = project.report()["specs"]
    assert len(entries) == 10  # five specs in two modes
    for entry in entries:
        theirs = run_as_test(project.root, entry["file"], entry["mode"], toolchain, tmp_path)
        assert_counts_agree(entry, theirs)


def test_failing_fixture_matches_as_test_where_as_test_finishes(
    built_failing: tuple[Project, DoitRun], toolchain: Toolchain, tmp_path: Path
) -> None:
    project, _ = built_failing
    # as-test never returns from hang.spec.ts; broken.spec.ts fails to compile (test below).
    finishing = [
        f"assembly/__tests__/{name}.spec.ts" for name in ("abort", "assertions", "snapshots")
    ]
    per_file = (
        run_as_test_per_file(project.root, finishing, toolchain, tmp_path)
        if toolchain.is_1_8
        else {}
    )
    compared = 0
    for entry in project.report()["specs"]:
        if entry["file"] not in finishing:
            continue
        if toolchain.is_1_8:
            theirs = per_file.pop((entry["file"], entry["mode"]))
        else:
            theirs = run_as_test(project.root, entry["file"], entry["mode"], toolchain, tmp_path)
        assert theirs.exit_code == 1, theirs.where()
        assert_counts_agree(entry, theirs)
        compared += 1
    assert compared == 6  # abort, assertions and snapshots, in both modes
    assert not per_file, f"as-test ran what we did not: {sorted(per_file)}"


def test_a_build_failure_fails_its_spec_where_as_test_reports_a_compile_error(
    built_failing: tuple[Project, DoitRun], toolchain: Toolchain, tmp_path: Path
) -> None:
    project, _ = built_failing
    for mode in ("wasi", "bindings"):
        spec = "assembly/__tests__/broken.spec.ts"
        theirs = run_as_test(project.root, spec, mode, toolchain, tmp_path)
        assert theirs.exit_code == 1 and "error" in theirs.output.lower(), theirs.where()
        ours = project.spec_report(spec, mode)
        assert ours["verdict"] == "failed"
        assert ours["stage"] == "build"
        assert ours["counts"]["tests_failed"] == 1


def test_a_hanging_spec_is_timed_out_where_as_test_never_returns(
    built_failing: tuple[Project, DoitRun],
) -> None:
    # as-test has no timeout: its own run of hang.spec.ts never ends, so only ours is checked.
    project, _ = built_failing
    for mode in ("wasi", "bindings"):
        ours = project.spec_report("assembly/__tests__/hang.spec.ts", mode)
        assert ours["verdict"] == "failed"
        assert "timed out after 2 s" in ours["error"]
