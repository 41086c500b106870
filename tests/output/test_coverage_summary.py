"""coverage_summary.py: the summary's coverage, per mode and in total, and the files it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from astest_tasks.core.records import RecordError, decode, encode
from astest_tasks.coverage.model import CoveragePoint, ReportCoverage
from astest_tasks.coverage.rules import CoverageRules
from astest_tasks.model.guest_report import Counts
from astest_tasks.model.results import SpecResult
from astest_tasks.output.coverage_gaps import GapListing
from astest_tasks.output.coverage_summary import (
    CoverageTarget,
    collect_coverage,
    coverage_report_json,
    write_coverage_files,
)
from astest_tasks.output.summary import SummaryPlan
from tests.conftest import make_spec_result


def spec_result(spec: str, mode: str, points: list[CoveragePoint] | None) -> SpecResult:
    coverage = None
    if points is not None:
        coverage = ReportCoverage(len(points), 0, 0, 0.0, tuple(points))
    return make_spec_result(
        spec.rsplit("/", 1)[-1].removesuffix(".spec.ts"),
        spec=spec,
        mode=mode,
        target="wasi",
        counts=Counts.zero(),
        duration_s=0.0,
        build_command="",
        coverage=coverage,
    )


def pt(hash_: str, file: str, executed: bool, line: int = 1) -> CoveragePoint:
    return CoveragePoint(hash_, file, line, 1, "Block", executed)


SRC = "assembly/src/a.ts"
RESULTS = [
    spec_result("t/one.spec.ts", "wasi", [pt("1", SRC, True), pt("2", SRC, False, 2)]),
    spec_result("t/two.spec.ts", "wasi", [pt("2", SRC, False, 2), pt("s", "t/two.spec.ts", True)]),
    spec_result("t/one.spec.ts", "bindings", [pt("1", SRC, False), pt("2", SRC, True, 2)]),
    spec_result("t/old.spec.ts", "wasi", None),  # an old result or a build failure: no points
    spec_result("t/one.spec.ts", "off", [pt("9", "assembly/src/z.ts", False)]),  # not covered
]


def test_per_mode_and_total_merge_with_each_modes_rules(tmp_path: Path) -> None:
    targets = [
        CoverageTarget("wasi", ".as-test/coverage/wasi"),
        CoverageTarget("bindings", None, CoverageRules(include_specs=True)),
    ]
    outcome = collect_coverage(tmp_path, targets, RESULTS)
    assert outcome is not None
    wasi, bindings = outcome.modes
    assert (wasi.summary.total, wasi.summary.covered) == (2, 1)  # the spec file is not counted
    assert (bindings.summary.total, bindings.summary.covered) == (2, 1)
    assert [f.file for f in outcome.total.files] == [SRC]  # mode "off" has coverage off
    assert (outcome.total.total, outcome.total.covered) == (2, 2)  # executed OR-ed across modes
    assert [spec.spec for spec, _ in wasi.per_spec] == ["t/one.spec.ts", "t/two.spec.ts"]


def test_no_covered_mode_means_no_coverage(tmp_path: Path) -> None:
    assert collect_coverage(tmp_path, [], RESULTS) is None


def test_files_go_to_each_modes_folder_like_ast_test(tmp_path: Path) -> None:
    targets = [CoverageTarget("wasi", "cov/wasi"), CoverageTarget("bindings", None)]
    outcome = collect_coverage(tmp_path, targets, RESULTS)
    assert outcome is not None

    written = write_coverage_files(tmp_path, outcome)

    # two.spec.ts only covers a point of a.ts: its own file still has a.ts; bindings has no folder.
    assert sorted(written) == [
        "cov/wasi/cobertura.xml",  # beside LCOV, for GitLab and other Cobertura readers
        "cov/wasi/coverage.log.json",
        "cov/wasi/coverage.one.spec.ts.log.json",
        "cov/wasi/coverage.two.spec.ts.log.json",
        "cov/wasi/lcov.info",
    ]
    merged = json.loads((tmp_path / "cov/wasi/coverage.log.json").read_text())
    assert (merged["total"], merged["covered"], merged["percent"]) == (2, 1, 50)
    two = json.loads((tmp_path / "cov/wasi/coverage.two.spec.ts.log.json").read_text())
    assert (two["total"], two["covered"]) == (1, 0)
    assert (tmp_path / "cov/wasi/lcov.info").read_text().startswith("TN:wasi\nSF:" + SRC)
    assert not list(tmp_path.glob("cov/wasi/.*.tmp"))  # atomic writes leave no temporaries


def test_same_spec_file_names_in_two_folders_get_as_tests_disambiguated_keys(
    tmp_path: Path,
) -> None:
    results = [
        spec_result("assembly/__tests__/left/shared.spec.ts", "m", [pt("1", SRC, True)]),
        spec_result("assembly/__tests__/right/shared.spec.ts", "m", [pt("1", SRC, False)]),
    ]
    outcome = collect_coverage(tmp_path, [CoverageTarget("m", "c")], results)
    assert outcome is not None
    written = write_coverage_files(tmp_path, outcome)
    assert "c/coverage.shared.spec.ts.assembly____tests____left.log.json" in written
    assert "c/coverage.shared.spec.ts.assembly____tests____right.log.json" in written


def test_report_json_part_has_totals_files_and_modes(tmp_path: Path) -> None:
    targets = [CoverageTarget("wasi", "cov/wasi"), CoverageTarget("bindings", None)]
    outcome = collect_coverage(tmp_path, targets, RESULTS)
    assert outcome is not None
    part = coverage_report_json(outcome)
    assert part["total"] == 2 and part["covered"] == 2 and part["percent"] == 100.0
    assert part["files"] == [
        {"file": SRC, "total": 2, "covered": 2, "uncovered": 0, "percent": 100.0}
    ]
    assert part["modes"] == {
        "wasi": {
            "total": 2,
            "covered": 1,
            "uncovered": 1,
            "percent": 50.0,
            "directory": "cov/wasi",
        },
        "bindings": {"total": 2, "covered": 1, "uncovered": 1, "percent": 50.0, "directory": None},
    }


def test_targets_round_trip_through_plain_data() -> None:
    target = CoverageTarget("wasi", "cov", CoverageRules(include=("a/**",)))
    assert decode(CoverageTarget, encode(target)) == target


def test_the_summary_plan_carries_the_targets_to_doit_workers() -> None:
    plan = SummaryPlan(
        project_root="/p",
        report_path=".as-test/report.json",
        entries=(),
        coverage=(CoverageTarget("wasi", "cov/wasi", CoverageRules(exclude=("gen/**",))),),
    )
    assert decode(SummaryPlan, encode(plan)) == plan
    with pytest.raises(RecordError, match=r"^coverage: should be a list, not null$"):
        decode(SummaryPlan, {**encode(plan), "coverage": None})
    shown = SummaryPlan(project_root="/p", report_path="r.json", entries=(), show_coverage=True)
    assert decode(SummaryPlan, encode(shown)).gaps == GapListing(Path("/p"))
    expanded = SummaryPlan(
        project_root="/p",
        report_path="r.json",
        entries=(),
        show_coverage=True,
        expand_coverage_gaps=True,
    )
    assert decode(SummaryPlan, encode(expanded)).gaps == GapListing(Path("/p"), True)
    typed = CoverageTarget("wasi", None, CoverageRules(typed_points=True))
    labelled = SummaryPlan(
        project_root="/p", report_path="r.json", entries=(), coverage=(typed,), show_coverage=True
    )
    assert decode(SummaryPlan, encode(labelled)).gaps == GapListing(Path("/p"), False, True)
    assert plan.gaps is None
