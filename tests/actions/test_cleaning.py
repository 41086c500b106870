"""What doit clean removes beyond the targets: our leftovers, by name or by glob, never more."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.actions.cleaning import (
    fuzz_leftovers,
    remove_files,
    run_leftovers,
    summary_leftovers,
)
from astest_tasks.run.default_runtime import DefaultRuntime
from tests.conftest import make_run_request


def test_leftovers_of_a_run_and_of_the_summary() -> None:
    request = make_run_request("/p", "math", DefaultRuntime("wasi"), logs_dir=".as-test/logs/wasi")
    assert run_leftovers(request) == [
        ".as-test/crashes/math.spec.wasi.json",
        ".as-test/crashes/math.spec.wasi.log",
        # the result as the version before named it, should no run have replaced it yet
        ".as-test/build/wasi/math.spec.result.json",
        ".as-test/logs/wasi/math.spec.log",
    ]
    assert summary_leftovers(".as-test/report.json", [".as-test/coverage/wasi"]) == [
        ".as-test/report.json",
        ".as-test/junit.xml",
        ".as-test/reports/report.tap",
        ".as-test/report.ctrf.json",
        ".as-test/html/index.html",
        ".as-test/report-state.json",
        ".as-test/coverage/wasi/coverage.*.log.json",
        ".as-test/coverage/wasi/coverage.log.json",
        ".as-test/coverage/wasi/lcov.info",
        ".as-test/coverage/wasi/cobertura.xml",
    ]


def test_remove_files_takes_only_what_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("report.json", "cov/coverage.a.log.json", "cov/lcov.info", "cov/keep.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    listed = ["report.json", "cov/coverage.*.log.json", "absent.json"]
    remove_files(str(tmp_path), listed, dryrun=True)
    assert (tmp_path / "report.json").exists(), "a dry run removes nothing"
    remove_files(str(tmp_path), listed, dryrun=False)
    left = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert left == ["cov/keep.txt", "cov/lcov.info"]
    assert "removing file 'report.json'" in capsys.readouterr().out


def test_fuzz_leftovers_cover_the_campaign_and_its_fuzzers(tmp_path: Path) -> None:
    crashes = tmp_path / "c"
    crashes.mkdir()
    for name in (
        "deep__m.fuzz.wasi.json",
        "deep__m.fuzz.wasi.add-works.log",
        "other.fuzz.wasi.log",
    ):
        (crashes / name).write_text("x")
    remove_files(str(tmp_path), fuzz_leftovers("c", "deep/m", "wasi"), dryrun=False)
    assert [p.name for p in crashes.iterdir()] == ["other.fuzz.wasi.log"]


def test_names_with_glob_characters_are_taken_literally(tmp_path: Path) -> None:
    for folder in ("[x]", "x"):  # "[x]" as a pattern matches "x"
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "report.json").write_text("x")
    remove_files(str(tmp_path), summary_leftovers("[x]/report.json", []), dryrun=False)
    assert [p.parent.name for p in tmp_path.rglob("*.json")] == ["x"]
