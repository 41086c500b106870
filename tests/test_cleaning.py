"""What doit clean removes beyond the targets: our leftovers, by name or by glob, never more."""

from __future__ import annotations

from pathlib import Path

import pytest

from astest_tasks.actions import RunRequest
from astest_tasks.cleaning import remove_files, run_leftovers, summary_leftovers


def test_leftovers_of_a_run_and_of_the_summary() -> None:
    request = RunRequest(
        project_root="/p",
        spec_path="assembly/__tests__/math.spec.ts",
        spec_id="math",
        mode="wasi",
        target="wasi",
        wasm_path="w",
        build_record_path="b",
        result_path="r",
        snapshot_dir="s",
        timeout_s=1,
        crash_dir=".as-test/crashes",
        logs_dir=".as-test/logs/wasi",
    )
    assert run_leftovers(request) == [
        ".as-test/crashes/math.spec.wasi.json",
        ".as-test/crashes/math.spec.wasi.log",
        ".as-test/logs/wasi/math.spec.log",
    ]
    assert summary_leftovers(".as-test/report.json", [".as-test/coverage/wasi"]) == [
        ".as-test/report.json",
        ".as-test/junit.xml",
        ".as-test/reports/report.tap",
        ".as-test/coverage/wasi/coverage.*.log.json",
        ".as-test/coverage/wasi/coverage.log.json",
        ".as-test/coverage/wasi/lcov.info",
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
