"""Coverage end to end: real asc + as-test 1.0.7 instrumentation, real wasmtime, real doit.

Our numbers are compared with what `npx ast test` (as-test 1.0.7's own CLI) writes for the same
specs in another copy of the same fixture, and our lcov.info is read by a real LCOV parser (the
npm package lcov-parse, installed by `npm ci`).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from astest_tasks.coverage.model import CoveragePoint
from astest_tasks.model.results import read_result_head
from tests.coverage.test_cobertura import valid_cobertura
from tests.integration.conftest import NODE_MODULES, DoitRun, Project, clone_project, copy_project

# One worker runs the whole module (pytest-xdist's loadgroup): its module-scoped projects are
# built once, not once per worker.
pytestmark = [pytest.mark.integration, pytest.mark.xdist_group("coverage")]

COVERAGE_DIR = ".as-test/coverage/default"
SPECS = ("calc.spec.ts", "shapes.spec.ts")
LCOV_READER = """
const parse = require(process.argv[1]);
parse(process.argv[2], (error, files) => {
  if (error) { console.error(String(error)); process.exit(1); }
  console.log(JSON.stringify(files));
});
"""


@pytest.fixture(scope="session")
def built_coverage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, DoitRun]]:
    project = copy_project("coverage", tmp_path_factory.mktemp("built-coverage"))
    yield project, project.doit()


@pytest.fixture(scope="session")
def as_test_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The same fixture run by as-test 1.0.7's own `npx ast test`: its folder and its stdout."""
    project = copy_project("coverage", tmp_path_factory.mktemp("as-test-coverage"))
    (project.root / "dodo.py").unlink()
    proc = subprocess.run(
        ["npx", "ast", "test"],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"},
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    yield project.root, proc.stdout


def coverage_json(root: Path, name: str) -> dict[str, Any]:
    data = json.loads((root / COVERAGE_DIR / name).read_text())
    assert isinstance(data, dict)
    return data


def coverage_block(stdout: str) -> list[str]:
    """The lines from "Coverage" to the blank line after it."""
    lines = stdout.splitlines()
    start = lines.index("Coverage")
    end = lines.index("", start)
    return lines[start:end]


def test_per_spec_files_equal_what_ast_test_writes(
    built_coverage: tuple[Project, DoitRun], as_test_run: tuple[Path, str]
) -> None:
    project, run = built_coverage
    assert run.exit_code == 0, run.stdout + run.stderr
    reference_root, _ = as_test_run
    for spec in SPECS:
        name = f"coverage.{spec}.log.json"
        ours, theirs = coverage_json(project.root, name), coverage_json(reference_root, name)
        assert theirs["total"] > 0, f"as-test instrumented nothing in {spec}"
        assert ours == theirs, spec


def test_totals_and_console_block_equal_ast_tests(
    built_coverage: tuple[Project, DoitRun], as_test_run: tuple[Path, str]
) -> None:
    project, run = built_coverage
    _, reference_stdout = as_test_run
    theirs = coverage_block(reference_stdout)
    assert coverage_block(run.stdout) == theirs
    # the block holds real numbers, and the summary still ends with the tests line
    assert theirs[1].startswith("  84.62% [==========--] (11/13 covered")
    assert run.last_line == "tests: 9 passed, 0 failed, 0 skipped"
    report = project.report()["coverage"]
    assert (report["total"], report["covered"], report["uncovered"]) == (13, 11, 2)
    merged = coverage_json(project.root, "coverage.log.json")
    assert (merged["total"], merged["covered"]) == (13, 11)
    assert [f["file"] for f in merged["files"]] == [
        "assembly/src/calc.ts",
        "assembly/src/shapes.ts",
    ]


def test_the_configs_rules_removed_points(built_coverage: tuple[Project, DoitRun]) -> None:
    project, _ = built_coverage
    results = sorted((project.root / ".as-test/build/default").glob("*.result.jsonl"))
    raw = {p.file for r in results for p in read_coverage(r)}
    kept = {f["file"] for f in coverage_json(project.root, "coverage.log.json")["files"]}
    # The wasm reported the excluded generated file; the summary dropped it (exclude rule).
    assert "assembly/src/generated/table.ts" in raw
    assert "assembly/src/generated/table.ts" not in kept
    # ignore.names ["debugDump"]: its function's point (line 25 of calc.ts) is gone.
    calc_lines = {
        p["line"]
        for f in coverage_json(project.root, "coverage.log.json")["files"]
        if f["file"] == "assembly/src/calc.ts"
        for p in f["points"]
    }
    assert 21 in calc_lines and 25 not in calc_lines


def test_lcov_is_read_by_a_real_lcov_parser(built_coverage: tuple[Project, DoitRun]) -> None:
    project, _ = built_coverage
    node = shutil.which("node")
    assert node is not None
    proc = subprocess.run(
        [node, "-e", LCOV_READER, str(NODE_MODULES / "lcov-parse"), COVERAGE_DIR + "/lcov.info"],
        cwd=project.root,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    parsed = {entry["file"]: entry for entry in json.loads(proc.stdout)}
    merged = coverage_json(project.root, "coverage.log.json")
    assert sorted(parsed) == [f["file"] for f in merged["files"]]
    for file in merged["files"]:
        entry = parsed[file["file"]]
        lines: dict[int, bool] = {}
        for point in file["points"]:
            lines[point["line"]] = lines.get(point["line"], False) or point["executed"]
        assert entry["lines"]["found"] == len(lines) == len(entry["lines"]["details"])
        assert entry["lines"]["hit"] == sum(lines.values())
        assert {d["line"]: d["hit"] == 1 for d in entry["lines"]["details"]} == lines
    functions = {
        name: {(d["name"], d["line"], d["hit"]) for d in entry["functions"]["details"]}
        for name, entry in parsed.items()
    }
    assert functions == {
        "assembly/src/calc.ts": {
            ("add", 1, 1), ("clamp", 5, 1), ("sign", 15, 1), ("neverCalled", 21, 0),
        },
        "assembly/src/shapes.ts": {
            ("constructor", 2, 1), ("area", 4, 1), ("isSquare", 8, 1), ("scaled", 15, 0),
        },
    }  # fmt: skip


def test_the_parameter_toggles_coverage_and_cached_runs_keep_it(
    built_coverage: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_coverage[0], tmp_path)
    build_record = project.root / ".as-test/build/default/calc.build.json"

    off = project.doit(env={"ASTEST_COVERAGE": "off"})
    assert off.exit_code == 0, off.stdout + off.stderr
    assert "astest:build:default:calc" in off.executed  # another build key: rebuilt and re-run
    assert "astest:run:default:calc" in off.executed
    assert "AS_TEST_COVERAGE_ENABLED=0 " in json.loads(build_record.read_text())["command"]
    assert "Coverage" not in off.stdout.splitlines()
    assert "coverage" not in project.report()

    on = project.doit(env={"ASTEST_COVERAGE": "on"})
    assert "astest:build:default:calc" in on.executed
    assert "AS_TEST_COVERAGE_ENABLED=1 " in json.loads(build_record.read_text())["command"]
    assert coverage_block(on.stdout) == coverage_block(built_coverage[1].stdout)

    # Every spec cached: the coverage still comes from the stored results, files included.
    shutil.rmtree(project.root / ".as-test/coverage")
    cached = project.doit()
    assert cached.executed == ["astest:summary"], cached.stdout
    assert coverage_block(cached.stdout) == coverage_block(built_coverage[1].stdout)
    assert coverage_json(project.root, "coverage.log.json")["covered"] == 11
    assert (project.root / COVERAGE_DIR / "lcov.info").is_file()
    assert cached.last_line == "tests: 9 passed, 0 failed, 0 skipped"


def test_a_bad_switch_is_one_error_line(fresh_project: Callable[[str], Project]) -> None:
    project = fresh_project("coverage")
    run = project.doit(env={"ASTEST_COVERAGE": "sometimes"})
    assert run.exit_code == 3
    assert "ASTEST_COVERAGE: 'sometimes' is not a coverage switch" in run.stderr
    assert "Traceback" not in run.stderr


def read_coverage(result_file: Path) -> tuple[CoveragePoint, ...]:
    result = read_result_head(result_file)
    assert result is not None and result.coverage is not None, result_file
    return result.coverage.points


def test_cobertura_is_valid_against_its_dtd_agrees_with_lcov_and_is_cleaned(
    built_coverage: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_coverage[0], tmp_path)
    cobertura = project.root / COVERAGE_DIR / "cobertura.xml"
    root = valid_cobertura(cobertura.read_text(encoding="utf-8"))
    # The source is the project that wrote it (this clone copied its file).
    assert root.findtext("sources/source") == built_coverage[0].root.resolve().as_posix()
    merged = coverage_json(project.root, "coverage.log.json")
    classes = {c.get("filename"): c for c in root.iter("class")}
    assert sorted(classes) == [f["file"] for f in merged["files"]]
    valid = covered = 0
    for file in merged["files"]:
        lines: dict[int, bool] = {}
        for point in file["points"]:
            lines[point["line"]] = lines.get(point["line"], False) or point["executed"]
        shown = {
            int(ln.get("number")): ln.get("hits") == "1"
            for ln in classes[file["file"]].iterfind("lines/line")
        }
        assert shown == lines, file["file"]
        valid, covered = valid + len(lines), covered + sum(lines.values())
    assert (root.get("lines-valid"), root.get("lines-covered")) == (str(valid), str(covered))
    methods = {m.get("name") for m in classes["assembly/src/calc.ts"].iterfind("methods/method")}
    assert methods == {"add", "clamp", "sign", "neverCalled"}  # LCOV's FN records

    cleaned = project.doit("clean", "astest")
    assert cleaned.exit_code == 0, cleaned.stdout + cleaned.stderr
    assert not cobertura.exists() and not (project.root / COVERAGE_DIR / "lcov.info").exists()


def test_coverage_fail_under_fails_the_run_naming_the_files_furthest_below(
    built_coverage: tuple[Project, DoitRun], tmp_path: Path
) -> None:
    project = clone_project(built_coverage[0], tmp_path)
    step_summary = tmp_path / "step_summary.md"
    ci = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(step_summary)}

    below = project.doit("astest", "--coverage-fail-under=90", env=ci)

    assert below.exit_code == 1, below.stdout + below.stderr
    expected = (
        "total coverage 84.62% is below 90% (--coverage-fail-under=90); furthest below: "
        "assembly/src/shapes.ts 80.00% (4/5 points), assembly/src/calc.ts 87.50% (7/8 points)"
    )
    assert f" FAIL  {expected}" in below.stdout.splitlines()
    assert below.last_line == "tests: 9 passed, 0 failed, 0 skipped"
    assert f"- **failed:** {expected}" in step_summary.read_text().replace("&#95;", "_")

    assert project.doit("astest", "--coverage-fail-under=84.62").exit_code == 0
    by_mode = project.doit(env={"ASTEST_COVERAGE_FAIL_UNDER": "50,default=85"})
    assert by_mode.exit_code == 1
    assert "coverage of mode default 84.62% is below 85% (--coverage-fail-under default=85)" in (
        by_mode.stdout
    )

    typo = project.doit("astest", "--coverage-fail-under=defualt=85")
    assert typo.exit_code == 3
    assert "mode 'defualt' has no coverage this run (modes with coverage: default); fix:" in (
        typo.stderr
    )


def test_cobertura_of_each_as_test_generation_matches_its_lcov(
    fresh_project: Callable[[str], Project],
) -> None:
    """as-test 1.8's transform types its points (1.1.3+), which decides what is a function:
    both generations' files are valid and say what their LCOV says."""
    project = fresh_project("coverage")
    run = project.doit()
    assert run.exit_code == 0, run.stdout + run.stderr
    folder = project.root / COVERAGE_DIR
    root = valid_cobertura((folder / "cobertura.xml").read_text(encoding="utf-8"))
    lcov: dict[str, dict[str, set[tuple[str, ...]]]] = {}
    for record in (folder / "lcov.info").read_text().split("end_of_record\n")[:-1]:
        fields = [line.split(":", 1) for line in record.splitlines()]
        source = next(value for key, value in fields if key == "SF")
        lcov[source] = {
            "lines": {tuple(v.split(",")) for k, v in fields if k == "DA"},
            "functions": {tuple(v.split(",", 1)[::-1]) for k, v in fields if k == "FN"},
        }
    cobertura = {
        c.get("filename"): {
            "lines": {(ln.get("number"), ln.get("hits")) for ln in c.iterfind("lines/line")},
            "functions": {
                (m.get("name"), m.find("lines/line").get("number"))
                for m in c.iterfind("methods/method")
            },
        }
        for c in root.iter("class")
    }
    assert cobertura == lcov and len(cobertura) == 2


def test_the_gitlab_coverage_regex_of_the_docs_finds_the_total(
    built_coverage: tuple[Project, DoitRun],
) -> None:
    """docs/ci-integration.md gives GitLab a `coverage:` pattern: it must find the summary's
    total, and only it (not a file's line of the breakdown)."""
    page = (Path(__file__).parents[2] / "docs" / "ci-integration.md").read_text()
    pattern = re.search(r"^  coverage: '/(.+)/'$", page, re.MULTILINE)
    assert pattern is not None
    found = re.findall(pattern.group(1), built_coverage[1].stdout, re.MULTILINE)
    assert found == ["84.62"]
