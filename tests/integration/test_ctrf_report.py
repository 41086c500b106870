"""report.ctrf.json of real runs: valid CTRF, and counting what the summary counts.

The passing fixture has skipped tests; the failing one failing expectations, a spec that does
not compile, one that aborts and one that runs past its timeout. Both run on both toolchains.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import junitparser
import pytest

from astest_tasks.output.formats.ctrf import EXPECTATIONS
from tests.integration.conftest import DoitRun, Project, clone_project
from tests.integration.toolchains import Toolchain
from tests.output.formats.test_ctrf import validated_ctrf

pytestmark = pytest.mark.integration

CTRF = ".as-test/report.ctrf.json"


def summary_counts(last_line: str) -> dict[str, int]:
    """``tests: P passed, F failed, S skipped``, the summary's last line, as numbers."""
    label, _, counts = last_line.partition(": ")
    assert label == "tests"
    numbers = {}
    for part in counts.split(", "):
        number, name = part.split(" ")
        numbers[name] = int(number)
    return numbers


def junit_expectations(path: Path) -> dict[str, int]:
    """The ``expectations.*`` properties of every test suite of junit.xml, added up."""
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    for element in ElementTree.parse(path).iter("property"):
        name = element.get("name", "")
        if name.startswith("expectations."):
            totals[name.removeprefix("expectations.")] += int(element.get("value", "0"))
    return totals


def failed_pairs(document: dict[str, Any]) -> set[tuple[str, ...]]:
    """The (mode, spec) of every failed CTRF test."""
    tests = document["results"]["tests"]
    return {tuple(test["suite"]) for test in tests if test["status"] == "failed"}


@pytest.mark.parametrize("fixture", ["built_passing", "built_failing"])
def test_the_ctrf_report_is_valid_and_counts_what_the_summary_counts(
    fixture: str, request: pytest.FixtureRequest, toolchain: Toolchain
) -> None:
    """On both toolchains (``toolchain`` parametrizes the fixture projects)."""
    project, run = request.getfixturevalue(fixture)
    document = validated_ctrf(project.root / CTRF)
    summary = document["results"]["summary"]
    tests = document["results"]["tests"]
    # The expectations, as-test's tests: the summary's last line and report.json's totals.
    assert summary["extra"][EXPECTATIONS] == summary_counts(run.last_line)
    assert summary["extra"][EXPECTATIONS] == project.report()["totals"]["tests"]
    # The test cases, as junit.xml lists them.
    junit = junitparser.JUnitXml.fromfile(str(project.root / ".as-test/junit.xml"))
    assert summary["tests"] == len(tests) == junit.tests
    assert summary["failed"] == junit.failures
    assert summary["skipped"] == junit.skipped
    assert summary["passed"] == junit.tests - junit.failures - junit.skipped
    # junit.xml's expectation properties and the TAP stream's totals say the same as the summary
    # (on 1.8.0 an xtest is a skipped suite, which the test cases alone would count as skipped).
    assert junit_expectations(project.root / ".as-test/junit.xml") == summary_counts(run.last_line)
    tap_totals = (project.root / ".as-test/reports/report.tap").read_text().splitlines()[-1]
    assert tap_totals == "# expectations " + run.last_line.partition(": ")[2]
    for status in ("passed", "failed", "skipped", "pending", "other"):
        assert summary[status] == sum(1 for test in tests if test["status"] == status)
    failed_specs = {
        (spec["mode"], spec["file"])
        for spec in project.report()["specs"]
        if spec["verdict"] == "failed"
    }
    assert failed_pairs(document) == failed_specs
    assert summary["suites"] == len(project.report()["specs"])


def test_a_spec_that_did_not_compile_or_crashed_is_a_failed_test(
    built_failing: tuple[Project, DoitRun],
) -> None:
    project, _ = built_failing
    tests = validated_ctrf(project.root / CTRF)["results"]["tests"]
    for spec in ("broken", "abort", "hang"):
        path = f"assembly/__tests__/{spec}.spec.ts"
        failing = [t for t in tests if t["filePath"] == path and t["status"] == "failed"]
        assert sorted(t["suite"][0] for t in failing) == ["bindings", "wasi"], spec
        assert all(t["message"] and t["trace"] for t in failing), spec
    broken = next(t for t in tests if t["filePath"] == "assembly/__tests__/broken.spec.ts")
    assert "TS2322" in broken["message"] + broken["trace"]
    assertion = next(t for t in tests if t["name"] == "assertions > wrong number")
    assert assertion["trace"].startswith("assembly/__tests__/assertions.spec.ts:8:5\n")


def test_the_ctrf_report_is_left_alone_while_no_result_changes(
    built_passing: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_passing[0], tmp_path)
    # In its new folder the clone's reports are written once (the folder shapes the reports).
    assert project.doit().exit_code == 0
    path = project.root / CTRF
    before = path.stat()
    assert project.doit().exit_code == 0
    assert path.stat().st_mtime_ns == before.st_mtime_ns, "nothing changed: not rewritten"
    (project.root / ".as-test/report-state.json").unlink()
    assert project.doit().exit_code == 0
    assert path.stat().st_ino != before.st_ino, "written again, once the state is gone"
    assert validated_ctrf(path)["results"]["summary"]["failed"] == 0
